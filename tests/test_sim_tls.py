"""`fudge sim --executor dask` over TLS: a scheduler runs any pickled code sent to it, so one reached off
a trusted network is reached over `tls://` with certificates of the cluster's own CA.

A throwaway CA and certificates are made with `openssl` for each test run; the
cluster is a real Dask scheduler and worker listening on `tls://` with
encryption required, and `fudge sim` runs against it as a separate process.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.processes import ROOT, fudge

SHEETS = ROOT / "examples" / "sheets"
DUEL = [str(SHEETS / "snorri.toml"), str(SHEETS / "brynhild.toml"), "-n", "40", "--seed", "8", "--json"]

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="makes its certificates with openssl")


def openssl(folder: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=30)


def new_ca(folder: Path, name: str) -> None:
    """`name`.pem, a self-signed CA certificate, and its key `name`.key (P-256: made in milliseconds)."""
    openssl(folder, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "1", "-subj", f"/CN={name}")


def signed(folder: Path, name: str, ca: str) -> None:
    """`name`.pem, a certificate signed by the CA `ca`, and its key `name`.key."""
    openssl(folder, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}")
    openssl(folder, "x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
            "-CAcreateserial", "-out", f"{name}.pem", "-days", "1")


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cluster's CA, a certificate for its scheduler and worker, and one for the GM's client."""
    folder = tmp_path_factory.mktemp("pki")
    new_ca(folder, "cluster-ca")
    signed(folder, "node", "cluster-ca")
    signed(folder, "gm", "cluster-ca")
    return folder


def test_a_tls_scheduler_runs_the_fights_as_one_process_does(tmp_path: Path, pki: Path) -> None:
    """A scheduler and worker listening on tls:// only (encryption required): `--tls-ca-file`, `--tls-cert`
    and `--tls-key` reach it, and the run's statistics are those of one local process."""
    distributed = pytest.importorskip("distributed")
    from distributed.security import Security

    store = tmp_path / "fights.db"
    local = fudge("sim", *DUEL, store=store)
    assert local.returncode == 0, local.stderr
    security = Security(tls_ca_file=str(pki / "cluster-ca.pem"), require_encryption=True,
                        tls_scheduler_cert=str(pki / "node.pem"), tls_scheduler_key=str(pki / "node.key"),
                        tls_worker_cert=str(pki / "node.pem"), tls_worker_key=str(pki / "node.key"),
                        tls_client_cert=str(pki / "node.pem"), tls_client_key=str(pki / "node.key"))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tls://",
                                  security=security, scheduler_port=0, dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tls://")
        remote = fudge("sim", *DUEL, "--executor", "dask", "--scheduler", address,
                       "--tls-ca-file", str(pki / "cluster-ca.pem"), "--tls-cert", str(pki / "gm.pem"),
                       "--tls-key", str(pki / "gm.key"), store=store, timeout=60)
    assert remote.returncode == 0, remote.stderr
    assert json.loads(remote.stdout) == json.loads(local.stdout)


@pytest.mark.parametrize("options, message", [
    ([], "is a TLS scheduler: give --tls-ca-file, --tls-cert and --tls-key"),
    (["--tls-ca-file", "{pki}/cluster-ca.pem"], "needs both --tls-ca-file"),
    (["--tls-cert", "{pki}/gm.pem", "--tls-key", "{pki}/gm.key"], "needs both --tls-ca-file"),
    (["--tls-ca-file", "{pki}/missing.pem", "--tls-cert", "{pki}/gm.pem"], "cannot read TLS CA file"),
    (["--tls-ca-file", "{pki}", "--tls-cert", "{pki}/gm.pem"], "cannot read TLS CA file"),  # a folder
    (["--tls-ca-file", "{pki}/cluster-ca.pem", "--tls-cert", "{pki}/gm.csr"], "cannot be used"),  # a request
    (["--tls-ca-file", "{pki}/cluster-ca.pem", "--tls-cert", "{pki}/gm.pem", "--tls-key", "{pki}/node.key"],
     "cannot be used"),  # another certificate's key
    (["--tls-ca-file", "{pki}/cluster-ca.srl", "--tls-cert", "{pki}/gm.pem"], "is not PEM"),
], ids=["no-certificates", "no-client-cert", "no-ca", "missing-file", "folder", "not-a-certificate",
        "key-of-another", "not-pem"])
def test_a_tls_scheduler_without_usable_certificates_is_refused_in_one_line(
        tmp_path: Path, pki: Path, options: list[str], message: str) -> None:
    """No cluster is needed to refuse: the certificates are read and their TLS context made before any
    connection, and each problem is one line that says what to give."""
    pytest.importorskip("distributed")
    result = fudge("sim", *DUEL, "--executor", "dask", "--scheduler", "tls://127.0.0.1:9",
                   *(o.format(pki=pki) for o in options), store=tmp_path / "fights.db")
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_certificates_are_for_a_tls_scheduler_only(tmp_path: Path, pki: Path) -> None:
    """--tls-* with a tcp:// scheduler, or with local processes, is refused: it would not be used."""
    pytest.importorskip("distributed")
    certificates = ["--tls-ca-file", str(pki / "cluster-ca.pem"), "--tls-cert", str(pki / "gm.pem"),
                    "--tls-key", str(pki / "gm.key")]
    tcp = fudge("sim", *DUEL, "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9", *certificates,
                store=tmp_path / "fights.db")
    local = fudge("sim", *DUEL, *certificates, store=tmp_path / "fights.db")
    assert tcp.returncode == local.returncode == 1
    assert "--tls-* options are for a tls:// scheduler" in tcp.stderr
    assert "--tls-* options are for --executor dask" in local.stderr


def test_the_help_says_how_far_a_scheduler_is_trusted(tmp_path: Path) -> None:
    """`fudge sim --help` says why, in the command's text and at --scheduler: a scheduler runs any code
    sent to it, so it is reached over TLS or only on a trusted network."""
    result = fudge("sim", "--help", store=tmp_path / "fights.db")
    text = " ".join(result.stdout.replace("│", " ").split())
    assert ("Its scheduler runs whatever pickled code a client sends it: reach it over TLS "
            "(tls://HOST:PORT with --tls-ca-file, --tls-cert, --tls-key) or only on a trusted network.") in text
    assert ("A scheduler runs any code sent to it: reach it over tls:// with the --tls-* certificates, or over "
            "tcp:// only on a network where everyone is trusted.") in text
