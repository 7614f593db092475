//! Decides, once per build, which ptxas checks of `tests/ptxas.rs` can run on this machine.
//!
//! libtest has no run-time skip: a test that returns early is reported `ok`. So the search
//! happens here, and a check whose ptxas is missing is compiled with
//! `#[ignore = "skipped: ..."]` (`cargo test` prints `ignored, skipped: ...`) instead of
//! passing without checking anything. Each arch gets a cfg, set only when no ptxas for it is
//! found and none could be provisioned:
//!
//! - `no_ptxas_sm70 = "no_download"` (`sm75`, `sm80`, `sm90` alike): `$PTX_SYNC_NO_DOWNLOAD`
//!   is set, so the pinned wheel was not downloaded;
//! - `no_ptxas_sm70 = "fetch_failed"`: downloading it failed (offline, no python3).
//!
//! A ptxas that is found (or was provisioned) but rejects the probe sets nothing: the check
//! runs and fails for real, with ptxas's message.
//!
//! Downloading from a build script: [`xtask::find_ptxas`] provisions the pinned ptxas
//! ([`xtask::PTXAS_CUDA13`], [`xtask::PTXAS_CUDA12`]) from PyPI into `<workspace>/target/tools`
//! when none is installed. That is deliberate: the PTX checks are part of plain `cargo test`,
//! which must work on a fresh clone with nothing but rustup and python3; the files go only
//! into this workspace's `target/` (never the system or a Python environment), are pinned and
//! sha256-checked, are fetched once (later builds find them), and `PTX_SYNC_NO_DOWNLOAD=1`
//! turns it off. The checks run the same search again at run time, so the build only decides
//! which tests are ignored.

use std::collections::BTreeSet;
use std::path::PathBuf;
use xtask::{
    download_disabled, find_ptxas, install_hint, tools_dir, Arch, PtxasWheel, NO_DOWNLOAD_ENV,
};

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    for var in ["PTXAS", "PTXAS_SM70", NO_DOWNLOAD_ENV, "PATH"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let mut watch: BTreeSet<PathBuf> = BTreeSet::new();
    let mut missing = false;
    for arch in Arch::SUPPORTED {
        let cfg = format!("no_ptxas_{}", arch.to_string().replace('_', ""));
        println!("cargo::rustc-check-cfg=cfg({cfg}, values(\"no_download\", \"fetch_failed\"))");
        // A download says so on stderr (`cargo test -vv` shows it). No `cargo::warning` for
        // it: cargo replays a build script's warnings on every later build.
        match find_ptxas(arch) {
            Ok(ptxas) => {
                watch.insert(ptxas);
            }
            Err(e) => {
                missing = true;
                let wheel = PtxasWheel::for_arch(arch);
                let why = if wheel.tools_ptxas().is_file() {
                    None // provisioned but rejected: let the check run and fail
                } else if download_disabled() {
                    Some("no_download")
                } else {
                    Some("fetch_failed")
                };
                if let Some(why) = why {
                    println!("cargo::rustc-cfg={cfg}=\"{why}\"");
                }
                let verdict = if why.is_some() {
                    "is ignored"
                } else {
                    "will fail"
                };
                println!("cargo::warning=the ptxas check for {arch} {verdict}:");
                // Every error ends with the install hint: said once, below.
                let e = e.strip_suffix(&install_hint()).unwrap_or(&e);
                for line in e.lines().skip(1) {
                    println!("cargo::warning=  {line}");
                }
            }
        }
    }
    if missing {
        println!("cargo::warning={}", install_hint());
    }
    // A ptxas provisioned later (by `cargo xtask ptxas`, say) re-decides; so does a change of
    // the variables above (`touch tests/build.rs` after installing one elsewhere). Only paths
    // that exist are watched: cargo reruns a build script whose watched path is
    // missing on every build, and recompiles this crate each time.
    if missing && std::fs::create_dir_all(tools_dir()).is_ok() {
        watch.insert(tools_dir());
    }
    for path in watch {
        println!("cargo::rerun-if-changed={}", path.display());
    }
}
