//! The Rust toolchain a build runs on: its version, and the components the nvptx build needs.

use crate::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The components an nvptx build needs beyond rustc and cargo: `rust-src` (`core` is built
/// from source: rustup serves no prebuilt nvptx `rust-std`), `llvm-bitcode-linker` (the nvptx
/// target links PTX with it) and `llvm-tools` (the LLVM tools it runs).
pub const COMPONENTS: [&str; 3] = ["rust-src", "llvm-tools", "llvm-bitcode-linker"];

/// The first stable release where rust-lang/rust#137086 was seen fixed (no jump threading on
/// GPU targets, functions marked convergent): the `_syncthreads` loop shape compiled to the
/// same PTX with and without `-Zmir-enable-passes=-JumpThreading` on 1.99.1. Older releases
/// get the flag.
pub const CONVERGENCE_FIXED_IN: (u32, u32) = (1, 99);

/// What `rustc -vV` and `rustc --print sysroot` say about the toolchain a build uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    /// The rustc that was asked (`$RUSTC`, as cargo sets it for build scripts, or `rustc`).
    pub rustc: PathBuf,
    /// `release:` of `rustc -vV`, as (major, minor, patch).
    pub version: (u32, u32, u32),
    /// `host:` of `rustc -vV`, e.g. `x86_64-unknown-linux-gnu`.
    pub host: String,
    /// `rustc --print sysroot`.
    pub sysroot: PathBuf,
}

impl Toolchain {
    /// Asks `$RUSTC` (or `rustc`), run in `dir` so that rustup picks the toolchain a cargo
    /// started there would (a `rust-toolchain.toml` on the way up).
    pub fn detect_in(dir: &Path) -> Result<Toolchain, Error> {
        let rustc = PathBuf::from(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()));
        let run = |args: &[&str]| -> Result<String, Error> {
            let out = Command::new(&rustc)
                .current_dir(dir)
                .args(args)
                .output()
                .map_err(|e| {
                    Error::Toolchain(format!("could not run `{}`: {e}", rustc.display()))
                })?;
            if !out.status.success() {
                return Err(Error::Toolchain(format!(
                    "`{} {}` failed: {}",
                    rustc.display(),
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                )));
            }
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        };
        let vv = run(&["-vV"])?;
        let sysroot = PathBuf::from(run(&["--print", "sysroot"])?.trim());
        let field = |name: &str| {
            vv.lines()
                .find_map(|l| l.strip_prefix(name))
                .map(|v| v.trim().to_string())
                .ok_or_else(|| Error::Toolchain(format!("`rustc -vV` has no `{name}` line:\n{vv}")))
        };
        let version = parse_version(&field("release:")?)
            .ok_or_else(|| Error::Toolchain(format!("unreadable rustc version in:\n{vv}")))?;
        Ok(Toolchain {
            rustc,
            version,
            host: field("host:")?,
            sysroot,
        })
    }

    /// The rustup toolchain name (`1.95.0-x86_64-unknown-linux-gnu`) when the sysroot is a
    /// rustup toolchain directory, else `None`.
    pub fn rustup_name(&self) -> Option<String> {
        let parent = self.sysroot.parent()?;
        (parent.file_name()? == "toolchains")
            .then(|| {
                self.sysroot
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
            })
            .flatten()
    }

    /// Whether this rustc still needs `-Zmir-enable-passes=-JumpThreading` (rust-lang/rust#137086).
    pub fn needs_convergence_workaround(&self) -> bool {
        (self.version.0, self.version.1) < CONVERGENCE_FIXED_IN
    }

    /// The [`COMPONENTS`] missing from this toolchain.
    pub fn missing_components(&self) -> Vec<&'static str> {
        missing_in(&self.sysroot, &self.host)
    }

    /// The command that adds `missing` to this toolchain.
    pub fn install_command(&self, missing: &[&str]) -> String {
        match self.rustup_name() {
            Some(name) => format!(
                "rustup component add --toolchain {name} {}",
                missing.join(" ")
            ),
            None => format!(
                "rustup component add {} (or install them for the rustc at {})",
                missing.join(" "),
                self.sysroot.display()
            ),
        }
    }

    /// Checks the components; with `install`, runs `rustup component add` for the missing ones
    /// first. The error names the exact command to run.
    pub fn ensure_components(&self, install: bool) -> Result<(), Error> {
        let missing = self.missing_components();
        if missing.is_empty() {
            return Ok(());
        }
        let command = self.install_command(&missing);
        if !install || self.rustup_name().is_none() {
            return Err(Error::MissingComponents {
                missing: missing.iter().map(|s| s.to_string()).collect(),
                command,
            });
        }
        // One install at a time in this process (tests build PTX from several threads); the
        // others find the components there when they get the lock.
        static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
        let missing = self.missing_components();
        if missing.is_empty() {
            return Ok(());
        }
        let command = self.install_command(&missing);
        eprintln!("ptx-sync-build: installing missing components: {command}");
        let name = self.rustup_name().unwrap_or_default();
        let out = Command::new("rustup")
            .args(["component", "add", "--toolchain", &name])
            .args(&missing)
            .output()
            .map_err(|e| Error::Toolchain(format!("could not run `{command}`: {e}")))?;
        let still = self.missing_components();
        if !out.status.success() || !still.is_empty() {
            return Err(Error::Toolchain(format!(
                "`{command}` did not install {}: {}",
                still.join(", "),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(())
    }
}

/// `1.95.0`, `1.99.1-beta.2`, `1.97.0-nightly` -> (1, 95, 0) ...
fn parse_version(s: &str) -> Option<(u32, u32, u32)> {
    let core = s.split(['-', ' ']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u32>().ok());
    Some((
        parts.next()??,
        parts.next()??,
        parts.next().flatten().unwrap_or(0),
    ))
}

/// Which of [`COMPONENTS`] are missing from the toolchain at `sysroot` for `host`, judged by a
/// file each installs.
fn missing_in(sysroot: &Path, host: &str) -> Vec<&'static str> {
    let rustlib = sysroot.join("lib/rustlib");
    let bin = rustlib.join(host).join("bin");
    let exe = |name: &str| format!("{name}{}", std::env::consts::EXE_SUFFIX);
    let present = |c: &str| match c {
        "rust-src" => rustlib.join("src/rust/library/core/src/lib.rs").is_file(),
        "llvm-tools" => bin.join(exe("llvm-link")).is_file(),
        "llvm-bitcode-linker" => {
            bin.join("self-contained")
                .join(exe("llvm-bitcode-linker"))
                .is_file()
                || bin.join(exe("llvm-bitcode-linker")).is_file()
        }
        _ => true,
    };
    COMPONENTS.into_iter().filter(|c| !present(c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse() {
        assert_eq!(parse_version("1.95.0"), Some((1, 95, 0)));
        assert_eq!(parse_version("1.99.1-beta.2"), Some((1, 99, 1)));
        assert_eq!(parse_version("1.97.0-nightly"), Some((1, 97, 0)));
        assert_eq!(parse_version("x"), None);
    }

    fn toolchain(sysroot: PathBuf, minor: u32) -> Toolchain {
        Toolchain {
            rustc: "rustc".into(),
            version: (1, minor, 0),
            host: "x86_64-unknown-linux-gnu".into(),
            sysroot,
        }
    }

    #[test]
    fn workaround_only_before_the_fix() {
        assert!(toolchain("/".into(), 95).needs_convergence_workaround());
        assert!(toolchain("/".into(), 98).needs_convergence_workaround());
        assert!(!toolchain("/".into(), 99).needs_convergence_workaround());
    }

    /// A toolchain directory with no components: each is reported missing, and the error
    /// names the `rustup component add` line for that toolchain.
    #[test]
    fn missing_components_name_the_command() {
        let root = std::env::temp_dir().join(format!("ptx-sync-build-tc-{}", std::process::id()));
        let sysroot = root.join("toolchains/1.95.0-x86_64-unknown-linux-gnu");
        std::fs::create_dir_all(&sysroot).unwrap();
        let tc = toolchain(sysroot.clone(), 95);
        assert_eq!(
            tc.rustup_name().as_deref(),
            Some("1.95.0-x86_64-unknown-linux-gnu")
        );
        assert_eq!(tc.missing_components(), COMPONENTS.to_vec());
        let msg = tc.ensure_components(false).unwrap_err().to_string();
        assert!(
            msg.contains(
                "rustup component add --toolchain 1.95.0-x86_64-unknown-linux-gnu \
                 rust-src llvm-tools llvm-bitcode-linker"
            ),
            "{msg}"
        );
        // Installing one component's marker file takes it off the list.
        let core = sysroot.join("lib/rustlib/src/rust/library/core/src");
        std::fs::create_dir_all(&core).unwrap();
        std::fs::write(core.join("lib.rs"), "").unwrap();
        assert_eq!(
            tc.missing_components(),
            vec!["llvm-tools", "llvm-bitcode-linker"]
        );
        let _ = std::fs::remove_dir_all(&root);
        // Not a rustup toolchain: no toolchain name to give, but still what to install.
        let plain = toolchain("/opt/rust".into(), 95);
        assert_eq!(plain.rustup_name(), None);
        assert!(plain.install_command(&["rust-src"]).contains("rust-src"));
    }

    /// The toolchain running this test has what an nvptx build needs (rust-toolchain.toml
    /// lists the components; the project's own builds install them when missing).
    #[test]
    fn this_toolchain_is_detected() {
        let tc = Toolchain::detect_in(Path::new(".")).unwrap();
        assert!(tc.version.0 >= 1 && tc.sysroot.is_dir(), "{tc:?}");
    }
}
