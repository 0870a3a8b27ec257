"""A player's own page (`fudge invite FIGHTER`): the shared board, their fighter's sheet, and what they may ask.

The page is `/p/<secret>/` on the board's server. Who a link is for is read from the GM's secrets at every
request (service.links.invited), so a revoked link is refused (403) from the next request on, its open
stream included.

What each link is sent is built for it on the server (the anchors: boardgame.io's `playerView`, and its
issue 1159, where the unfiltered initial state leaked): the shared part is the public board's bytes (the
GM's choice of wounds shown, cli.web.view), and the player's own part holds their fighter alone: the exact
wounds of their own fighter, their own requests, and the seal their own fighter's declaration is sealed by.
Nothing else is sent: no other player's requests or seals, no dice seed (the board shows only its commitment), no odds
against a fighter whose wounds the players read in words (the chances follow his wound penalty), and no
refusal line that names such a fighter (the rules' line may say his wound).

A state-changing request (`POST act`) carries the link's secret (in its path), a CSRF token in a header
(an HMAC of the link under a key of this server's run, given in the page; a cross-site form can neither
read it nor set a header, and a JSON body takes a CORS preflight no other site passes), an Origin that is
this server's when the browser sends one, and a JSON body under BODY bytes. Requests are limited per link
(`Limit`).

A sealed declaration (A-SEAL-1) is sealed on the player's own device: the page draws the salt, hashes it with
the stance's `seal_text` (a SHA-256 of its own: the browser's `crypto.subtle` is only given to HTTPS pages, and
a LAN board is plain HTTP), keeps stance and salt in the browser's storage and sends the seal alone. Neither
this server nor the GM's play nor the log holds the stance until a blow needs it; then the GM's side marks
the seal `wanted` (service.secrets) and the page, seeing the mark in its stream, sends the opening, which is
checked against the seal here and only then put among the GM's secrets for the blow to reveal. The page's
odds send the opening of the player's own seal in a header, used for those odds and kept nowhere.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections import deque
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, Protocol

import msgspec

from fudge_combat.cli import player_actions
from fudge_combat.cli.web import cards, view
from fudge_combat.cli.web.html import h
from fudge_combat.store.base import StoreError



class Board(Protocol):
    """What the players' links read of the board's server (cli.web.app.Board)."""

    fights: Any
    wounds: Callable[[str], Any]

    def name(self) -> str: ...
    def poll(self) -> dict[str, object]: ...

BODY = 2048  # bytes of a request's JSON at most
RATE = (6, 10.0)  # requests a link may make in so many seconds (odds included): a player's taps, not a script's
ASKED = 6  # the player's latest requests shown on their page


def traits(who: Any) -> list[str]:
    """The fighter's own traits, the ones a player may roll: the sheet's attributes and skills."""
    if who is None:
        return []
    sheet = who.fighter.sheet
    return [*sheet.attributes, *sheet.skills]


class Limit:
    """At most RATE[0] requests per link in any RATE[1] seconds; `wait` says how long until the next is taken."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.seen: dict[str, deque[float]] = {}

    def wait(self, link: str) -> float:
        count, window = RATE
        now = self.clock()
        times = self.seen.setdefault(link, deque())
        while times and now - times[0] >= window:
            times.popleft()
        if len(times) >= count:
            return window - (now - times[0])
        times.append(now)
        return 0.0


class Players:
    """The players' links of the board's fight: who each is for, their pages' payloads, their requests."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.key = secrets.token_bytes(32)  # this server run's: a page's CSRF token is good while it runs
        self.limit = Limit()

    # --- who a link is for --------------------------------------------------------------
    def fighter(self, token: str) -> str | None:
        """The fighter the link was given for in the board's fight, or None (never given, revoked, another fight's)."""
        from fudge_combat.service.links import invited

        fights = self.board.fights
        try:
            return invited(fights.keeper, fights.store.fight(self.board.name()).fight_id, token)
        except StoreError:
            return None

    def csrf(self, token: str) -> str:
        return hmac.new(self.key, token.encode(), hashlib.sha256).hexdigest()

    def csrf_ok(self, token: str, given: str) -> bool:
        return hmac.compare_digest(self.csrf(token), given)

    # --- what the link is sent ---------------------------------------------------------------
    def payload(self, token: str, fighter: str) -> dict[str, object]:
        """The shared board (the public bytes) and the player's own part, built for this link alone."""
        shared = self.board.poll()
        fights = self.board.fights
        name = self.board.name()
        try:
            state = fights.state(name)
            who = state.find(fighter)
            mine = self.own_html(state, who) if who is not None else '<p class="status">your fighter has left the fight</p>'
            targets = [c.name for c in state.combatants.values() if who is None or c.key != who.key]
            own_traits = traits(who)
            uses = [[key, said] for key, (said, _) in player_actions.uses(state, fighter).items()]
            points, declares = view.ruleset_of(state).points, view.ruleset_of(state).declares
            initiative = state.options.initiative != "none"
            asked = self.asked_html(name, token)
            sealed = state.sealed[who.key][0] if who is not None and who.key in state.sealed else None
            wanted = self.wanted(name, token)
        except StoreError as exc:
            mine, targets, asked, own_traits, uses = f'<p class="status">{h(str(exc))}</p>', [], "", [], []
            points, declares, initiative, sealed, wanted = "fudge", False, False, None, []
        return {**shared, "mine": mine, "asked": asked, "targets": targets, "traits": own_traits, "uses": uses,
                "points": points, "declares": declares, "initiative": initiative, "sealed": sealed, "wanted": wanted}

    def wanted(self, name: str, token: str) -> list[str]:
        """The seals of this link's device a blow waits for (store.requests, `wanted`): the page opens them."""
        from fudge_combat.service.links import link_id
        from fudge_combat.store.requests import WANTED, RequestStore

        store = self.board.fights.store
        if not isinstance(store, RequestStore):
            return []
        return [seal for r in store.requests(name, WANTED)
                if r.link == link_id(token) and (seal := opening_of(r.body)) is not None]

    def own_html(self, state: Any, who: Any) -> str:
        """The player's fighter: the card with exact wounds, the sheet's skills, their sealed declaration."""
        wounds = self.board.wounds(state.fight_id)
        own = msgspec.structs.replace(wounds, exact_for=wounds.exact_for | {who.key}, words_for=wounds.words_for - {who.key})
        sides = view.side_colours(state)
        actor = view.current_actor(state)
        card = view.card(state, who, own, sides, actor is not None and actor.key == who.key, view.acted(state).get(who.key))
        parts = [cards.card_html(card, view.ruleset_of(state).points)]
        sheet = who.fighter.sheet
        skills = [f"{skill} {level:+d}" if isinstance(level, int) else f"{skill} {level}"
                  for skill, level in {**sheet.attributes, **sheet.skills}.items()]
        if skills:
            parts.append(f'<p class="meta" id="sheet">{h(" · ".join(skills))}</p>')
        sealed = state.sealed.get(who.key)
        if sealed is not None:  # on this device (the page says its stance), or opened for a blow, or the GM's
            kept = self.board.fights.keeper.box.get(state.fight_id, f"seal:{sealed[0]}")
            text, where = "kept on the device that sealed it", "hidden from everyone, the GM too, until a blow opens it"
            if kept is not None:
                where = "opened for the blow that needs it" if self.opened(state, sealed[0]) else (
                    "sealed by the GM: hidden from the other players and from the GM's screens until a blow opens it")
                try:
                    declaration = json.loads(kept)["declaration"]
                    text = "all-out " + declaration["all_out"] if declaration.get("all_out") else "normal"
                except (ValueError, KeyError, TypeError):
                    text = "unreadable"
            parts.append(f'<p class="meta" id="sealed" data-seal="{h(sealed[0])}">your sealed declaration: '
                         f'<span class="stance">{h(text)}</span> (<span class="where">{h(where)}</span>)</p>')
        turn = "your turn" if actor is not None and actor.key == who.key else (
            f"{actor.name}'s turn" if actor is not None else "nobody's turn")
        parts.append(f'<p class="meta" id="yourturn">{h(turn)}</p>')
        return "".join(parts)

    def opened(self, state: Any, seal: str) -> bool:
        """Whether a device's seal was opened for a blow (its `wanted` mark answered): the page says so."""
        from fudge_combat.store.requests import ACCEPTED, RequestStore

        store = self.board.fights.store
        if not isinstance(store, RequestStore):
            return False
        return any(opening_of(r.body) == seal for r in store.requests(state.name, ACCEPTED))

    def marks(self, token: str) -> tuple[tuple[str, str], ...]:
        """The link's requests and their answers (one indexed query): the page is built again when they change."""
        from fudge_combat.service.links import link_id
        from fudge_combat.store.requests import RequestStore

        store = self.board.fights.store
        if not isinstance(store, RequestStore):
            return ()
        try:
            return tuple((r.id, r.state) for r in store.requests(self.board.name()) if r.link == link_id(token))
        except StoreError:
            return ()

    def asked_html(self, name: str, token: str) -> str:
        from fudge_combat.service.links import link_id
        from fudge_combat.store.requests import RequestStore

        store = self.board.fights.store
        if not isinstance(store, RequestStore):
            return ""
        mine = [r for r in store.requests(name) if r.link == link_id(token)][-ASKED:]
        state = self.board.fights.state(name)
        wounds = self.board.wounds(state.fight_id)
        hidden = [who.name for who in state.combatants.values() if wounds.in_words(who)]
        items = []
        for request in reversed(mine):
            try:
                what = player_actions.what(player_actions.read(request.body), state, request.fighter)
            except ValueError:
                what = "a request this fudge does not know"
            refusal = request.said
            if view.mentions(refusal, hidden):  # the rules' line may say a wound the players read in words
                refusal = "the rules refuse it now (the GM's screen says why)"
            opened = request.state == "accepted" and opening_of(request.body) is not None
            answer = {"pending": "waiting for the GM", "accepted": "opened" if opened else "accepted",
                      "held": "held for the next round",
                      "wanted": "this page opens it"}.get(request.state, f"refused: {refusal}")
            items.append(f'<li class="{h(request.state)}"><p>{h(what)}: {h(answer)}</p></li>')
        return "".join(items)

    # --- what the link asks -------------------------------------------------------------------
    def ask(self, token: str, fighter: str, body: bytes) -> tuple[int, str]:
        """A player's action as a request waiting for the GM: (status, the line the page shows)."""
        from fudge_combat.engine.kernel.errors import InputError, RuleError
        from fudge_combat.engine.kernel.words import possessive
        from fudge_combat.service.links import link_id
        from fudge_combat.service.names import resolve
        from fudge_combat.store.requests import Request, requests_of

        try:
            action = player_actions.ACTION.validate_json(body)
        except ValueError:
            return 400, "that is no action this page makes: reload it"
        fights = self.board.fights
        name = self.board.name()
        try:
            store = requests_of(fights.store)
            state = fights.state(name)
            if isinstance(action, player_actions.Attack):
                target = resolve(state, action.target)
                if target == fighter:
                    return 400, "your fighter cannot attack himself"
                action = action.model_copy(update={"target": target})
            if isinstance(action, player_actions.Roll):
                known = {trait.lower(): trait for trait in traits(state.find(fighter))}
                if action.trait.lower() not in known:
                    return 409, f"{possessive(fighter)} sheet has no trait {action.trait!r}: {', '.join(known.values())}"
                action = action.model_copy(update={"trait": known[action.trait.lower()]})
            if isinstance(action, player_actions.Spend):
                offered = player_actions.uses(state, fighter)
                if action.use not in offered:
                    return 409, (f"{possessive(fighter)} points offer no {action.use!r} now: "
                                 f"{', '.join(offered) or 'none'}")
            if isinstance(action, player_actions.Initiative):
                if state.options.initiative == "none":
                    return 409, "this fight rolls no initiative: its rounds have no order to roll for"
                if not action.dice.strip():
                    return 400, "type the dice you rolled"
            if isinstance(action, player_actions.Declare) and not view.ruleset_of(state).declares:
                return 409, f"this fight's rules ({view.ruleset_of(state).name}) declare no stance before a roll"
            if isinstance(action, player_actions.Open):
                return self.open(state, fighter, token, action)
            if isinstance(action, player_actions.Declare) and action.sealed:
                if action.stance is not None or action.seal is None:  # a page from before devices sealed
                    return 400, "this page is out of date (it would send the stance you seal): reload it"
            elif isinstance(action, player_actions.Declare) and action.stance is None:
                return 400, "choose a stance"
            request = Request(id=secrets.token_urlsafe(12), fighter=fighter, link=link_id(token),
                              at=datetime.now(timezone.utc).isoformat(timespec="microseconds"),
                              body=action.model_dump_json(exclude_none=True))
            store.add_request(name, request)
        except (InputError, RuleError, StoreError) as exc:
            return 409, str(exc)
        return 202, f"asked: {player_actions.what(action, state, fighter)}, waiting for the GM"

    def open(self, state: Any, fighter: str, token: str, action: player_actions.Open) -> tuple[int, str]:
        """A seal of the player's fighter opened by their page for the blow that waits for it: checked against
        the seal in the log (A-SEAL-1), then put among the GM's secrets, where the blow reads it."""
        from fudge_combat.engine.decide import seal_of
        from fudge_combat.service.links import link_id
        from fudge_combat.store.requests import ACCEPTED, WANTED, requests_of

        store = requests_of(self.board.fights.store)
        who = state.find(fighter)
        wanted = [r for r in store.requests(state.name, WANTED)
                  if r.link == link_id(token) and opening_of(r.body) == action.seal]
        if who is None or state.sealed.get(who.key, ("",))[0] != action.seal or not wanted:
            return 409, "no blow waits for that seal now: nothing was opened"
        if action.stance is None or action.salt is None:
            return 400, "an opening gives the stance and the salt the page kept: reload the page"
        declaration = player_actions.STANCES[action.stance][0]
        if seal_of(declaration, action.salt) != action.seal:
            return 409, "that stance and salt do not give the seal (A-SEAL-1): nothing was opened"
        self.board.fights.keeper.put(state.fight_id, {f"seal:{action.seal}": json.dumps(
            {"declaration": msgspec.to_builtins(declaration), "salt": action.salt})})
        for request in wanted:
            store.settle_request(state.name, request.id, ACCEPTED, "opened for the blow", WANTED)
        return 200, "your sealed declaration is opened for the blow"

    def odds(self, fighter: str, target: str, opening: str = "") -> tuple[int, str]:
        """The exact odds of the player's own fighter's next blow on `target` (read-only; their own seal alone
        opened: from the GM's secrets, or by the `opening` the page sends of a seal it holds, used here alone)."""
        from fudge_combat.engine.kernel.errors import InputError, RuleError
        from fudge_combat.engine.kernel.words import possessive
        from fudge_combat.engine.odds.now import odds_now
        from fudge_combat.service.names import resolve

        fights = self.board.fights
        try:
            state = fights.state(self.board.name())
            aimed = resolve(state, target[:80])
            foe = state.find(aimed)
            if foe is not None and self.board.wounds(state.fight_id).in_words(foe):
                # the chances follow the foe's wound penalty and track: they would tell what the words hide
                return 409, f"the GM shows {possessive(aimed)} wounds in words: the odds against {aimed} would tell them"
            reveals = fights.reveals(state, [fighter], ask=False) or own_opening(state, fighter, opening)
            result = odds_now(state, fighter, aimed, reveals)
        except (InputError, RuleError, StoreError) as exc:
            return 409, str(exc)
        return 200, result.line()


def opening_of(body: str) -> str | None:
    """The seal a stored `wanted` mark asks the page to open (a stored row is untrusted: read by the model)."""
    try:
        action = player_actions.read(body)
    except ValueError:
        return None
    return action.seal if isinstance(action, player_actions.Open) else None


def own_opening(state: Any, fighter: str, opening: str) -> tuple[Any, ...]:
    """The page's opening of its fighter's own seal (`{"seal", "stance", "salt"}`) as a reveal, if it gives
    the seal in force; else none (the odds then say the declaration is sealed)."""
    from fudge_combat.engine import commands as cmd
    from fudge_combat.engine.decide import seal_of

    who = state.find(fighter)
    if not opening or who is None or who.key not in state.sealed:
        return ()
    try:
        given = player_actions.ACTION.validate_python({"kind": "open", **json.loads(opening[:400])})
    except ValueError:
        return ()
    if not isinstance(given, player_actions.Open) or given.stance is None or given.salt is None:
        return ()
    declaration = player_actions.STANCES[given.stance][0]
    if given.seal != state.sealed[who.key][0] or seal_of(declaration, given.salt) != given.seal:
        return ()
    return (cmd.Reveal(combatant=who.name, declaration=declaration, salt=given.salt),)


SCRIPT = """
const $ = (id) => document.getElementById(id), body = document.body;
const base = location.pathname.replace(/\\/?$/, "/"), csrf = document.querySelector("meta[name=csrf]").content;
let shown = "";
function targets(names) { const key = JSON.stringify(names); if (key === shown) return; shown = key;
  const pick = $("target"), was = pick.value; pick.replaceChildren(...names.map((n) => new Option(n, n)));
  if (names.includes(was)) pick.value = was; }
let offered = "";
function uses(list) { const key = JSON.stringify(list); if (key === offered) return; offered = key;
  const pick = $("use"), was = pick.value; pick.replaceChildren(...list.map(([k, said]) => new Option(said, k)));
  if (list.some(([k]) => k === was)) pick.value = was; }
function listen() {
  const source = new EventSource(base + "events");
  source.onmessage = (m) => { const d = JSON.parse(m.data); own = d.sealed;
    if (d.wanted) for (const s of [...sent]) if (!d.wanted.includes(s)) sent.delete(s);
    if (d.revoked) { source.close(); $("said").textContent = d.said; body.classList.add("revoked"); return; }
    if (!d.asked.includes('class="pending"') && $("said").textContent.startsWith("asked:")) $("said").textContent = "";
    $("live").innerHTML = d.html; $("mine").innerHTML = d.mine; $("asked").innerHTML = d.asked;
    targets(d.targets); uses(d.uses); showSeal(); d.wanted.forEach(opening); document.title = d.title; body.dataset.seq = d.seq; $("conn").textContent = "live · event " + d.seq; };
  source.onerror = () => { $("conn").textContent = "reconnecting…";
    if (source.readyState === EventSource.CLOSED) setTimeout(listen, 5000); };
}
async function ask(action) {
  $("said").textContent = "sending…";
  try {
    const r = await fetch(base + "act", {method: "POST", credentials: "omit", body: JSON.stringify(action),
      headers: {"Content-Type": "application/json", "X-Fudge-Csrf": csrf}});
    $("said").textContent = (await r.json()).said; return r.status;
  } catch (e) { $("said").textContent = "the server did not answer: try again"; return 0; }
}
function on(id, make) { $(id).addEventListener("submit", (e) => { e.preventDefault(); const a = make(); if (a) ask(a); }); }
on("f-attack", () => ({kind: "attack", target: $("target").value, dice: $("dice").value.trim() || null}));
if ($("f-declare")) on("f-declare", () => $("seal-it").checked ? seal($("stance")) : ({kind: "declare", stance: $("stance").value}));
on("f-roll", () => ({kind: "roll", trait: $("trait").value, dice: $("rolled").value.trim() || null}));
on("f-spend", () => ({kind: "spend", use: $("use").value}));
if ($("f-initiative")) on("f-initiative", () => ({kind: "initiative", dice: $("initiative").value}));
$("b-odds").addEventListener("click", async () => {
  const kept = held(own), headers = kept ? {"X-Fudge-Open": JSON.stringify({seal: own, ...kept})} : {};
  try { const r = await fetch(base + "odds?target=" + encodeURIComponent($("target").value), {credentials: "omit", headers});
    $("odds").textContent = (await r.json()).said; } catch (e) { $("odds").textContent = "no answer"; } });
// A-SEAL-1 on this device: the stance and salt stay in this browser's storage, the server gets the seal alone
function sha256(bytes) {
  const K = [], H = [], w = new Array(64), f = (x) => (x - Math.floor(x)) * 4294967296 | 0;
  for (let n = 2, found = 0; found < 64; n++) {
    let prime = true; for (let d = 2; d * d <= n; d++) if (n % d === 0) { prime = false; break; }
    if (prime) { if (found < 8) H[found] = f(Math.pow(n, 1 / 2)); K[found++] = f(Math.pow(n, 1 / 3)); } }
  const bits = bytes.length * 8, padded = new Uint8Array(((bytes.length + 9 + 63) >> 6) << 6);
  padded.set(bytes); padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bits / 4294967296)); view.setUint32(padded.length - 4, bits >>> 0);
  const r = (x, n) => (x >>> n) | (x << (32 - n));
  for (let at = 0; at < padded.length; at += 64) {
    for (let i = 0; i < 64; i++) w[i] = i < 16 ? view.getUint32(at + 4 * i) : (((r(w[i-2], 17) ^ r(w[i-2], 19) ^ (w[i-2] >>> 10))
      + w[i-7] + (r(w[i-15], 7) ^ r(w[i-15], 18) ^ (w[i-15] >>> 3)) + w[i-16]) | 0);
    let [a, b, c, d, e, g, h2, k] = H;
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (r(e, 6) ^ r(e, 11) ^ r(e, 25)) + ((e & g) ^ (~e & h2)) + K[i] + w[i]) | 0;
      const t2 = ((r(a, 2) ^ r(a, 13) ^ r(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = h2; h2 = g; g = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0; }
    [a, b, c, d, e, g, h2, k].forEach((x, i) => { H[i] = (H[i] + x) | 0; }); }
  return H.map((x) => (x >>> 0).toString(16).padStart(8, "0")).join("");
}
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
let own = $("sealed") ? $("sealed").dataset.seal : null; const sent = new Set();
function held(seal) { try { return seal && JSON.parse(localStorage.getItem("fudge-seal:" + seal) || "null"); }
  catch (e) { return null; } }
function seal(pick) {
  const stance = pick.value, salt = hex(crypto.getRandomValues(new Uint8Array(16)));
  const made = sha256(new TextEncoder().encode(salt + pick.selectedOptions[0].dataset.seal));
  try { localStorage.setItem("fudge-seal:" + made, JSON.stringify({stance, salt})); }
  catch (e) { $("said").textContent = "this browser keeps nothing for this page, so a seal made here could never be opened: untick sealed, or use another browser"; return null; }
  return {kind: "declare", sealed: true, seal: made};
}
function showSeal() {
  const line = $("sealed"), kept = line && held(line.dataset.seal);
  if (!line || line.querySelector(".where").textContent.startsWith("opened") || line.querySelector(".where").textContent.startsWith("sealed by")) return;
  const pick = $("stance"), words = kept && pick && Array.from(pick.options).find((o) => o.value === kept.stance);
  line.querySelector(".stance").textContent = words ? words.textContent : "kept on another device or browser";
  line.querySelector(".where").textContent = kept ? "kept on this device alone: nobody else, the GM included, sees it until a blow opens it" : "only the device that sealed it can open it";
}
function opening(wanted) {
  if (sent.has(wanted)) return; sent.add(wanted);
  const kept = held(wanted);
  if (!kept) { $("said").textContent = "a blow waits for your sealed declaration, which this browser does not hold: open the page where you sealed it"; return; }
  ask({kind: "open", seal: wanted, stance: kept.stance, salt: kept.salt}).then((status) => {
    if (status === 429 || status === 0) setTimeout(() => { sent.delete(wanted); opening(wanted); }, 2000); });
}
showSeal();
listen();
"""

CSS = cards.CSS + """
.mine{margin:.4em 0 .6em}.you{font-size:.85em;color:var(--dim);margin:.2em 0}
form.act{display:flex;flex-wrap:wrap;align-items:center;gap:.35em;margin:.35em 0}
form.act select,form.act input[type=text]{font:inherit;min-height:2.2em;max-width:100%}
form.act input[type=text]{width:8em}form.act button,#b-odds{font:inherit;min-height:2.2em;padding:0 .8em}
#said,#odds{font-weight:600;margin:.3em 0;overflow-wrap:anywhere}
.asked{list-style:none;margin:0;padding:0;font-size:.9em}.asked li{border-top:1px solid var(--line);padding:.2em 0}
.asked .refused{color:var(--w3)}body.revoked form{display:none}
"""

POLICY = (f"default-src 'none'; script-src {cards._hash(SCRIPT)}; style-src {cards._hash(CSS)}; connect-src 'self'; "
          "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = {**cards.HEADERS, "Content-Security-Policy": POLICY}


def page_html(payload: dict[str, Any], fighter: str, csrf: str) -> str:
    """The player's page: their own part and forms above the shared board; the script keeps both live."""
    from fudge_combat.engine.decide import seal_text
    from fudge_combat.engine.kernel.words import possessive

    seq = int(str(payload["seq"]))
    targets = "".join(f'<option value="{h(n)}">{h(n)}</option>' for n in payload["targets"])
    stances = "".join(f'<option value="{h(key)}" data-seal="{h(seal_text(declaration))}">{h(words)}</option>'
                      for key, (declaration, _, words) in player_actions.STANCES.items())
    uses = "".join(f'<option value="{h(key)}">{h(said)}</option>' for key, said in payload["uses"])
    rolls = "".join(f'<option value="{h(n)}">{h(n)}</option>' for n in payload["traits"])
    forms = (f'<form class="act" id="f-attack"><label for="target">attack</label><select id="target">{targets}</select>'
             '<input type="text" id="dice" inputmode="text" autocomplete="off" placeholder="dice: + 0 - 0" '
             'aria-label="your dice, as rolled (empty: the fight\'s dice)" maxlength="24">'
             '<button>Attack</button><button type="button" id="b-odds">Odds</button></form>'
             '<p id="odds" role="status"></p>'
             + (f'<form class="act" id="f-declare"><label for="stance">declare</label><select id="stance">{stances}</select>'
                '<label><input type="checkbox" id="seal-it" checked> sealed</label><button>Declare</button></form>'
                if payload["declares"] else "") +
             f'<form class="act" id="f-roll"><label for="trait">roll</label><select id="trait">{rolls}</select>'
             '<input type="text" id="rolled" autocomplete="off" placeholder="dice: + 0 - 0" '
             'aria-label="your dice, as rolled (empty: the fight\'s dice)" maxlength="24"><button>Roll</button></form>'
             + ('<form class="act" id="f-initiative"><label for="initiative">initiative</label>'
                '<input type="text" id="initiative" autocomplete="off" placeholder="dice: + 0 - 0" '
                'aria-label="your initiative dice for the next round, as rolled" maxlength="24"><button>Roll</button></form>'
                if payload["initiative"] else "") +
             f'<form class="act" id="f-spend"><label for="use">{h(str(payload["points"]))} point</label>'
             f'<select id="use">{uses}</select>'
             '<button>Spend</button></form><p id="said" role="status"></p>')
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<meta name="color-scheme" content="light dark"><meta name="referrer" content="no-referrer">'
            f'<meta name="csrf" content="{h(csrf)}"><title>{h(str(payload["title"]))}</title><style>{CSS}</style></head>'
            f'<body data-seq="{seq}"><main><p class="you">{h(possessive(fighter))} player</p>'
            f'<section class="mine" id="mine">{payload["mine"]}</section>{forms}'
            f'<h2>Your requests</h2><ol class="asked" id="asked">{payload["asked"]}</ol>'
            f'<div id="live">{payload["html"]}</div><p class="status" id="conn">event {seq}</p></main>'
            f"<script>{SCRIPT}</script></body></html>")
