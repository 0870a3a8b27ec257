"""The oldest PostgreSQL store a club may hold (schema 1: owners and shares, no row-level security, names
unique on the server), read through the CLI fight by fight, imported and branched logs included; reading
never changes it; `fudge club upgrade` migrates it to this schema in one transaction (A-LOG-1).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from fudge_combat.events.records import load
from tests.processes import fudge
from tests.test_store_schema import fight_of, old_logs


def dump(url: str) -> dict[str, list[str]]:
    """Every row of every table, and the schema's policies and constraints: what a read must not change."""
    import psycopg

    with psycopg.connect(url) as db:
        tables = [t for (t,) in db.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")]
        found = {t: sorted(map(repr, db.execute(f"SELECT * FROM {t}").fetchall())) for t in tables}  # type: ignore[arg-type]
        found["~policies"] = sorted(map(repr, db.execute("SELECT tablename, policyname FROM pg_policies").fetchall()))
        found["~constraints"] = sorted(map(repr, db.execute("SELECT conname FROM pg_constraint c JOIN pg_namespace n "
                                                             "ON n.oid = connamespace WHERE nspname = current_schema()")))
        return found


def schema_1(url: str) -> dict[str, str]:
    """The first schema, as the first version made it, holding the golden logs (alice's; one shared with
    bob): name -> the fight's own id (an imported or branched log begins with another fight's rows)."""
    import psycopg

    from fudge_combat.store.postgres import MIGRATIONS

    ids: dict[str, str] = {}
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(MIGRATIONS[0])  # type: ignore[arg-type]
        db.execute("INSERT INTO meta VALUES ('store_schema', '1')")
        for number, (name, rows) in enumerate(old_logs().items(), 1):
            info = fight_of(name, rows)  # the fight's own id is its last rows'; a branch's parent and fork its own
            ids[name] = info.fight_id
            db.execute("INSERT INTO fights VALUES (%s, 'alice', %s, %s, %s, %s, %s)",
                       (number, name, info.fight_id, info.parent, info.fork_seq, info.created_at))
            with db.cursor() as cursor:
                cursor.executemany("INSERT INTO events VALUES (%s, %s, %s, %s, %s, %s)",
                                   [(number, r.seq, r.command, r.type, r.body, r.hash) for r in rows])
                spans: dict[str, list[int]] = {}
                for r in rows:
                    spans.setdefault(r.command, []).append(r.seq)
                cursor.executemany("INSERT INTO commands VALUES (%s, %s, %s, %s)",
                                   [(number, c, min(s), max(s)) for c, s in spans.items()])
        db.execute("SELECT setval('fights_id_seq', %s)", (len(ids),))
        db.execute("INSERT INTO shares VALUES (1, 'bob')")
    return ids


def run(url: str, folder: Path, *args: str, gm: str = "alice", input: str | None = None
        ) -> subprocess.CompletedProcess[str]:
    """`fudge` as a GM (FUDGE_GM; "": the role the URL logs in as) in their own folder."""
    return fudge(*args, store=url, cwd=folder, key=folder / "key", input=input, timeout=300,
                 env={"FUDGE_GM": gm, "FUDGE_SECRETS_FILE": str(folder / "secrets.db")})


def test_A_LOG_1_the_oldest_postgresql_store_is_read_fight_by_fight_unchanged_then_upgraded(
        pg_url: str, tmp_path: Path) -> None:
    from fudge_combat.store.postgres import STORE_SCHEMA

    ids = schema_1(pg_url)
    kinds = {load(rows[0].body).fight != ids[name] for name, rows in old_logs().items()}
    assert kinds == {True, False}  # logs of their own, and logs that begin with another fight's rows
    before = dump(pg_url)

    script = "".join(f"verify {name}\nlog --fight {name}\n" for name in ids)  # one session reads them all
    read = run(pg_url, tmp_path, "play", "--strict", input=script)
    assert read.returncode == 0 and read.stderr == "", read.stderr
    assert read.stdout.count("hash chain intact") == len(ids), read.stdout
    listed = run(pg_url, tmp_path, "fights")
    assert listed.returncode == 0 and all(name in listed.stdout for name in ids)
    assert dump(pg_url) == before  # reading wrote nothing: no cache, no setting, no migration

    upgraded = run(pg_url, tmp_path, "club", "upgrade")
    assert upgraded.returncode == 0 and "migrated from schema 1" in upgraded.stdout, upgraded.stderr
    after = dump(pg_url)
    assert after["meta"] == [repr(("store_schema", STORE_SCHEMA))]
    assert {t: after[t] for t in ("events", "commands")} == {t: before[t] for t in ("events", "commands")}
    assert after["shares"] == [repr((1, "bob", "alice"))] and after["gms"] == [repr(("alice",)), repr(("bob",))]
    for name in list(ids)[:3]:
        done = run(pg_url, tmp_path, "verify", name)
        assert done.returncode == 0 and "hash chain intact" in done.stdout, done.stderr


def test_a_migration_that_fails_leaves_the_oldest_store_as_it_was(pg_url: str, tmp_path: Path) -> None:
    """Schema 1 -> 2 -> 3 is one transaction: a step that fails (a table of the next schema's name already
    there) takes the earlier steps back with it; the GM's write is refused in one line."""
    import psycopg

    schema_1(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute("CREATE TABLE gms (somebody TEXT)")
    before = dump(pg_url)
    done = run(pg_url, tmp_path, "new", "duel")
    assert done.returncode == 1 and done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1
    assert dump(pg_url) == before  # schema 1 still: no row-level security, no stamp moved


def test_a_GMs_own_role_on_an_old_schema_is_told_to_ask_the_admin(pg_server: Any, tmp_path: Path) -> None:
    import psycopg

    url = pg_server.database()
    schema_1(url)
    role = f"gm_{url.split('@/', 1)[1].split('?')[0]}"
    with psycopg.connect(url, autocommit=True) as db:  # as the schema-2 README had the admin grant
        db.execute(f"CREATE ROLE {role} LOGIN")
        db.execute(f"GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA public TO {role}")
        db.execute(f"GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {role}")
    before = dump(url)
    done = run(url.replace("fudge@", f"{role}@"), tmp_path, "new", "duel", gm="")
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1
    assert "ask the club's admin to run `fudge club upgrade`" in done.stderr and "must be owner" not in done.stderr
    assert dump(url) == before
    admin = run(url, tmp_path, "club", "upgrade")
    assert admin.returncode == 0, admin.stderr
    with psycopg.connect(url) as db:  # the role is a GM of schema 3: its broad grants taken back
        assert db.execute("SELECT name FROM gms WHERE name = %s", (role,)).fetchone() == (role,)
        assert not db.execute("SELECT has_table_privilege(%s, 'events', 'UPDATE')", (role,)).fetchone()[0]
    again = run(url.replace("fudge@", f"{role}@"), tmp_path, "new", "duel", gm="")
    assert again.returncode == 0, again.stderr
