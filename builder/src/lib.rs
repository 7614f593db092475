//! # ptx-sync-build
//!
//! Builds a Rust kernel crate to PTX from a host crate's `build.rs`, with the flags rustc's
//! `nvptx64-nvidia-cuda` target needs for [ptx-sync](https://docs.rs/ptx-sync) kernels, so
//! nobody copies them by hand:
//!
//! - `--target nvptx64-nvidia-cuda --release` (a debug build is about 80 times larger and slow),
//! - `-Zbuild-std=core` (rustup serves no prebuilt nvptx `core`) with `RUSTC_BOOTSTRAP=1` (for
//!   that flag and the kernels' `#![feature(abi_ptx)]`),
//! - `-C target-cpu=sm_XX` ([`Arch`]; without it rustc emits `.target sm_30` PTX that ptxas
//!   rejects) and `-C target-feature=+ptx84` ([`Arch::PTX_ISA`]),
//! - `-Zmir-enable-passes=-JumpThreading` on rustc older than 1.99, where it stops block
//!   barriers from being duplicated into divergent branches (rust-lang/rust#137086; see
//!   [`toolchain::CONVERGENCE_FIXED_IN`]),
//! - its own target directory (a nested cargo cannot share the outer build's),
//! - ptx-sync's debug checks ([`PtxBuilder::debug_checks`]) in a debug build of the host
//!   crate, in an optimized kernel,
//! - with [`PtxBuilder::nvshmem`], NVSHMEM's device bitcode linked into the PTX
//!   (`-C link-arg=<root>/lib/libnvshmem_device.bc`), from an install [`nvshmem`] finds or
//!   fetches (the pinned `nvidia-nvshmem-cu13` wheel, sha256-checked), its root passed on to
//!   the host crate as `PTX_SYNC_NVSHMEM_HOME`,
//!
//! and in a build script: the PTX copied into `OUT_DIR`, an environment variable naming it for
//! `include_str!`, `cargo:rerun-if-changed` for every source file the kernels were built
//! from (read from cargo's dep-info, so path dependencies count too), and the kernel crate's
//! compiler warnings passed on as `cargo:warning=` lines, one line each (see
//! [`PtxBuilder::build`]).
//!
//! ```no_run
//! // build.rs of the host crate; the kernel crate is a `no_std` cdylib in ../kernels.
//! fn main() -> Result<(), ptx_sync_build::Error> {
//!     ptx_sync_build::PtxBuilder::new("../kernels")
//!         .arch(ptx_sync_build::Arch::Sm90)
//!         .build()?; // sets KERNELS_PTX (the crate's lib name, upper case, + `_PTX`)
//!     Ok(())
//! }
//! // main.rs: const PTX: &str = include_str!(env!("KERNELS_PTX"));
//! ```
//!
//! Kernels that call NVSHMEM (their crate depends on `ptx-sync` with the `nvshmem` feature):
//!
//! ```no_run
//! // build.rs: finds NVSHMEM 3.4 ($NVSHMEM_HOME, python3's nvidia.nvshmem, else downloads the
//! // pinned wheel into the target dir) and links its device library into the PTX.
//! fn main() -> Result<(), ptx_sync_build::Error> {
//!     ptx_sync_build::PtxBuilder::new("../kernels")
//!         .nvshmem(true)
//!         .build()?; // also sets PTX_SYNC_NVSHMEM_HOME to the install it linked
//!     Ok(())
//! }
//! ```
//!
//! Errors say what to run: a missing `rust-src` names the `rustup component add` line, a
//! kernel crate that is not a `cdylib` says so, a failed build carries cargo's output and the
//! flags it ran with. std only, no dependencies.

#![warn(missing_debug_implementations)]

mod arch;
mod diagnostics;
mod error;
pub mod nvshmem;
mod ptx_check;
pub mod toolchain;

pub use arch::{Arch, ParseArchError};
pub use error::Error;
use toolchain::Toolchain;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The nvptx target triple.
pub const TARGET: &str = "nvptx64-nvidia-cuda";

/// Overrides the arch of builds that do not set one ([`PtxBuilder::arch`]).
pub const ARCH_ENV: &str = "PTX_SYNC_ARCH";

/// Overrides whether builds that do not choose ([`PtxBuilder::debug_checks`]) turn on
/// ptx-sync's debug checks: `1`/`true`/`on` or `0`/`false`/`off`.
pub const DEBUG_CHECKS_ENV: &str = "PTX_SYNC_DEBUG_CHECKS";

/// Variables a surrounding `cargo build` / `cargo test` sets that must not leak into the nested
/// nvptx build (host flags, wrappers, another target dir, a jobserver). Any `CARGO_BUILD_*`,
/// `CARGO_TARGET_*`, `CARGO_PROFILE_*` and `CARGO_CFG_*` variable is removed too.
const LEAKY_ENV: &[&str] = &[
    "RUSTFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTDOCFLAGS",
    "CARGO_ENCODED_RUSTDOCFLAGS",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "CARGO_MAKEFLAGS",
    "MAKEFLAGS",
    "MFLAGS",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_PKG_NAME",
    "OUT_DIR",
    "TARGET",
    "HOST",
    "PROFILE",
    "OPT_LEVEL",
    "DEBUG",
    "NUM_JOBS",
];

/// Builds one kernel crate to PTX. See the [crate docs](crate).
#[derive(Clone, Debug)]
pub struct PtxBuilder {
    crate_dir: PathBuf,
    arch: Option<Arch>,
    target_dir: Option<PathBuf>,
    env_var: Option<String>,
    install_components: bool,
    convergence_workaround: Option<bool>,
    features: Vec<String>,
    debug_checks: Option<bool>,
    nvshmem: bool,
}

impl PtxBuilder {
    /// A builder for the kernel crate in `crate_dir` (relative paths are relative to the
    /// current directory, which in a build script is the package's own directory). The crate
    /// must be a `cdylib` (`[lib] crate-type = ["cdylib"]`) with `panic = "abort"` in its
    /// release profile, and is best its own workspace (`[workspace]` in its Cargo.toml).
    pub fn new(crate_dir: impl Into<PathBuf>) -> PtxBuilder {
        PtxBuilder {
            crate_dir: crate_dir.into(),
            arch: None,
            target_dir: None,
            env_var: None,
            install_components: false,
            convergence_workaround: None,
            features: Vec::new(),
            debug_checks: None,
            nvshmem: false,
        }
    }

    /// The architecture (default: `$PTX_SYNC_ARCH`, else [`Arch::DEFAULT`]). PTX built for
    /// one arch loads on that GPU generation and newer ones.
    pub fn arch(mut self, arch: Arch) -> PtxBuilder {
        self.arch = Some(arch);
        self
    }

    /// The nested build's target directory. Default: `<target>/<profile>/ptx-sync-build/<arch>`
    /// of the outer build in a build script, `<crate>/target/ptx-sync-build/<arch>` otherwise.
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> PtxBuilder {
        self.target_dir = Some(dir.into());
        self
    }

    /// The environment variable [`build`](Self::build) sets to the PTX path. Default: the
    /// kernel crate's lib name in upper case plus `_PTX` (`my_kernels` -> `MY_KERNELS_PTX`).
    pub fn env_var(mut self, name: impl Into<String>) -> PtxBuilder {
        self.env_var = Some(name.into());
        self
    }

    /// Runs `rustup component add` for missing [`toolchain::COMPONENTS`] instead of failing
    /// with that command in the error (default: off, a build does not change your toolchain).
    pub fn install_missing_components(mut self, install: bool) -> PtxBuilder {
        self.install_components = install;
        self
    }

    /// Forces `-Zmir-enable-passes=-JumpThreading` on or off (default: on for rustc older
    /// than [`toolchain::CONVERGENCE_FIXED_IN`]).
    pub fn convergence_workaround(mut self, on: bool) -> PtxBuilder {
        self.convergence_workaround = Some(on);
        self
    }

    /// Turns ptx-sync's debug checks on or off. On, the kernel is still built `--release`
    /// (optimized: a debug nvptx build is about 80 times larger and slow), with
    /// `debug-assertions` on for the `ptx-sync` package only, through
    /// `--config profile.release.package.ptx-sync.debug-assertions=true` (and
    /// `overflow-checks=false`). Then a kernel that misuses a primitive prints the reason with
    /// `vprintf` and traps (the launch fails with an illegal-instruction error, the message
    /// reaches the host's stdout): an atomic, lock, latch, semaphore or barrier in local
    /// memory, a semaphore released past its maximum, a latch counted below zero, a barrier
    /// arrived at too often, a misaligned pointer or bulk copy, an address in the wrong state
    /// space. Each check is an instruction or two. Only the `ptx-sync` package: on `core` and
    /// every crate, rustc's own UB checks would add hundreds of panic paths.
    ///
    /// Default: `$PTX_SYNC_DEBUG_CHECKS` if set, else on in a build script of a host crate
    /// built with debug assertions (`cargo build`, `cargo test`: cargo's `PROFILE` is
    /// `debug`), else off in `cargo build --release` and outside build scripts (where the kernel
    /// crate's own `[profile.release.package.ptx-sync]` decides). Off, nothing is passed
    /// when no one chose, and `debug-assertions=false` when [`debug_checks(false)`](Self::debug_checks)
    /// or the variable chose it.
    pub fn debug_checks(mut self, on: bool) -> PtxBuilder {
        self.debug_checks = Some(on);
        self
    }

    /// Links NVSHMEM's device library into the PTX (default: off), for kernels that call
    /// NVSHMEM through ptx-sync's `nvshmem` feature: the nested build gets
    /// `-C link-arg=<root>/lib/libnvshmem_device.bc`, and rustc's bitcode linker keeps what the
    /// kernels use (without it the PTX keeps `.extern .func` declarations that no driver
    /// resolves). The link reads NVSHMEM's 31 MB of bitcode: about 3 minutes on two cores.
    ///
    /// The install is [`nvshmem::find_or_fetch`]'s: `$NVSHMEM_HOME`, python3's
    /// `nvidia.nvshmem`, a fetched copy, else the pinned wheel downloaded into
    /// `<target dir>/ptx-sync-nvshmem` (the outer build's target dir in a build script,
    /// `<crate>/target` otherwise; not with `$PTX_SYNC_NO_DOWNLOAD` set). In a build script
    /// [`build`](Self::build) also prints `cargo:rerun-if-env-changed` for `NVSHMEM_HOME`,
    /// `PTX_SYNC_NVSHMEM_CACHE` and `PTX_SYNC_NO_DOWNLOAD`, and sets `PTX_SYNC_NVSHMEM_HOME`
    /// ([`nvshmem::ROOT_ENV`]) to the install's root for the host crate, so the program opens
    /// the host library of the same release.
    pub fn nvshmem(mut self, on: bool) -> PtxBuilder {
        self.nvshmem = on;
        self
    }

    /// The NVSHMEM install this build links ([`nvshmem`](Self::nvshmem)), found or fetched;
    /// `None` when NVSHMEM is off.
    pub fn nvshmem_install(&self) -> Result<Option<nvshmem::Install>, Error> {
        if !self.nvshmem {
            return Ok(None);
        }
        let cache = nvshmem::build_script_cache()
            .unwrap_or_else(|| self.crate_dir.join("target").join(nvshmem::CACHE_DIR_NAME));
        nvshmem::find_or_fetch(&cache).map(Some)
    }

    /// Whether this build turns ptx-sync's debug checks on (`Some(true)`), off
    /// (`Some(false)`), or leaves them to the kernel crate's manifest (`None`); see
    /// [`debug_checks`](Self::debug_checks).
    pub fn resolved_debug_checks(&self) -> Result<Option<bool>, Error> {
        if let Some(on) = self.debug_checks {
            return Ok(Some(on));
        }
        if let Some(v) = std::env::var_os(DEBUG_CHECKS_ENV) {
            return match v.to_string_lossy().trim() {
                "1" | "true" | "on" | "yes" => Ok(Some(true)),
                "0" | "false" | "off" | "no" => Ok(Some(false)),
                other => Err(Error::Config(format!(
                    "${DEBUG_CHECKS_ENV}={other:?}: expected 1 or 0 (true/false, on/off)"
                ))),
            };
        }
        Ok(host_debug_build().then_some(true))
    }

    /// The `--config` arguments that set ptx-sync's debug checks (empty when the kernel
    /// crate's manifest decides).
    pub fn debug_check_args(&self) -> Result<Vec<String>, Error> {
        Ok(match self.resolved_debug_checks()? {
            None => Vec::new(),
            Some(on) => {
                let key = "profile.release.package.ptx-sync";
                let mut args = vec![
                    "--config".to_string(),
                    format!("{key}.debug-assertions={on}"),
                ];
                if on {
                    // As in a release build: arithmetic wraps; only ptx-sync's checks are added.
                    args.extend([
                        "--config".to_string(),
                        format!("{key}.overflow-checks=false"),
                    ]);
                }
                args
            }
        })
    }

    /// Cargo features of the kernel crate to enable.
    pub fn features<S: Into<String>>(
        mut self,
        features: impl IntoIterator<Item = S>,
    ) -> PtxBuilder {
        self.features = features.into_iter().map(Into::into).collect();
        self
    }

    /// The arch this build uses.
    pub fn resolved_arch(&self) -> Result<Arch, Error> {
        match (self.arch, std::env::var(ARCH_ENV)) {
            (Some(a), _) => Ok(a),
            (None, Ok(s)) => s
                .parse()
                .map_err(|e: ParseArchError| Error::Config(format!("${ARCH_ENV}: {e}"))),
            (None, Err(_)) => Ok(Arch::DEFAULT),
        }
    }

    /// The PTX file's stem: the kernel crate's `[lib] name`, else its package name, with `-`
    /// as `_` (what rustc names the `.ptx`).
    pub fn ptx_stem(&self) -> Result<String, Error> {
        Ok(self.kernel_crate()?.stem)
    }

    fn manifest(&self) -> Result<PathBuf, Error> {
        let manifest = self.crate_dir.join("Cargo.toml");
        if manifest.is_file() {
            Ok(manifest)
        } else {
            Err(Error::CrateNotFound(self.crate_dir.clone()))
        }
    }

    /// The kernel crate's manifest, read and parsed once.
    fn kernel_crate(&self) -> Result<KernelCrate, Error> {
        let manifest = self.manifest()?;
        let text = std::fs::read_to_string(&manifest).map_err(|e| Error::Io {
            what: format!("reading {}", manifest.display()),
            source: e,
        })?;
        let (package, lib) = manifest_names(&text);
        let stem = artifact_name(package.as_deref(), lib.as_deref()).ok_or_else(|| {
            Error::Config(format!("{} has no [package] name", manifest.display()))
        })?;
        Ok(KernelCrate {
            name: package.unwrap_or_else(|| stem.clone()),
            stem,
            manifest,
        })
    }

    /// The RUSTFLAGS of the nested build, less the NVSHMEM link argument
    /// ([`nvshmem`](Self::nvshmem)), which [`cargo`](Self::cargo) adds once the install is found.
    pub fn rustflags(&self, toolchain: &Toolchain) -> Result<String, Error> {
        Ok(self.rustflags_from(arch_flags(self.resolved_arch()?), toolchain))
    }

    /// `arch_flags` plus the convergence workaround when this toolchain gets it.
    fn rustflags_from(&self, arch_flags: String, toolchain: &Toolchain) -> String {
        let mut flags = arch_flags;
        let workaround = self
            .convergence_workaround
            .unwrap_or_else(|| toolchain.needs_convergence_workaround());
        if workaround {
            flags += " -Zmir-enable-passes=-JumpThreading";
        }
        flags
    }

    fn default_target_dir(&self, arch: Arch) -> PathBuf {
        let base = std::env::var_os("OUT_DIR")
            .and_then(|out| outer_profile_dir(Path::new(&out)))
            .map(|profile| profile.join("ptx-sync-build"))
            .unwrap_or_else(|| self.crate_dir.join("target/ptx-sync-build"));
        base.join(arch.to_string())
    }

    /// The nested build's target directory ([`target_dir`](Self::target_dir) or the default).
    pub fn resolved_target_dir(&self) -> Result<PathBuf, Error> {
        Ok(self.target_dir_for(self.resolved_arch()?))
    }

    fn target_dir_for(&self, arch: Arch) -> PathBuf {
        self.target_dir
            .clone()
            .unwrap_or_else(|| self.default_target_dir(arch))
    }

    /// Everything a nested cargo run takes from this builder, the toolchain and the
    /// environment, resolved once: the arch, the toolchain's components (checked, or installed
    /// with [`install_missing_components`](Self::install_missing_components)), the flags, the
    /// target dir and the debug check arguments.
    fn plan(&self, nvshmem: Option<&nvshmem::Install>) -> Result<Plan, Error> {
        let arch = self.resolved_arch()?;
        let toolchain = Toolchain::detect_in(&self.crate_dir)?;
        toolchain.ensure_components(self.install_components)?;
        let docflags = arch_flags(arch);
        let mut rustflags = self.rustflags_from(docflags.clone(), &toolchain);
        let mut encoded_rustflags = None;
        if let Some(install) = nvshmem {
            let (plain, encoded) = with_link_arg(&rustflags, &install.bitcode());
            rustflags = plain;
            encoded_rustflags = encoded;
        }
        Ok(Plan {
            arch,
            rustflags,
            encoded_rustflags,
            docflags,
            target_dir: self.target_dir_for(arch),
            debug_check_args: self.debug_check_args()?,
        })
    }

    /// `cargo <args> --target nvptx64-nvidia-cuda -Zbuild-std=core --target-dir <dir>`, run in
    /// the kernel crate with this build's RUSTFLAGS (and RUSTDOCFLAGS), `RUSTC_BOOTSTRAP=1`,
    /// and the surrounding cargo's variables removed: for `cargo clippy` or `cargo doc` with
    /// the same flags as the build. Checks the toolchain's components first.
    ///
    /// With [`nvshmem`](Self::nvshmem) on, finds (or fetches) NVSHMEM and adds
    /// `-C link-arg=<bitcode>` to the RUSTFLAGS.
    pub fn cargo(&self, args: &[&str]) -> Result<Command, Error> {
        self.manifest()?;
        let install = self.nvshmem_install()?;
        let plan = self.plan(install.as_ref())?;
        Ok(self.command(args, &plan))
    }

    /// The nested `cargo <args>` of [`cargo`](Self::cargo), from a resolved plan.
    fn command(&self, args: &[&str], plan: &Plan) -> Command {
        let mut cmd = nested_cargo();
        if let Some(encoded) = &plan.encoded_rustflags {
            cmd.env("CARGO_ENCODED_RUSTFLAGS", encoded);
        }
        cmd.current_dir(&self.crate_dir)
            .env("RUSTC_BOOTSTRAP", "1")
            .env("RUSTFLAGS", &plan.rustflags)
            .env("RUSTDOCFLAGS", &plan.docflags)
            .args(args)
            .args(["--target", TARGET, "-Zbuild-std=core", "--target-dir"])
            .arg(&plan.target_dir);
        if !self.features.is_empty() {
            cmd.arg("--features").arg(self.features.join(","));
        }
        cmd.args(&plan.debug_check_args);
        cmd
    }

    /// Builds the PTX (release) and returns its path in the target directory. Works anywhere;
    /// in a build script use [`build`](Self::build).
    pub fn compile(&self) -> Result<PathBuf, Error> {
        let krate = self.kernel_crate()?;
        let install = self.nvshmem_install()?;
        Ok(self.compile_crate(&krate, install.as_ref())?.ptx)
    }

    /// [`compile`](Self::compile) of a crate whose manifest was read, with NVSHMEM already
    /// found (or off): the PTX, the source files cargo's dep-info lists for it, and the
    /// diagnostics of the build.
    fn compile_crate(
        &self,
        krate: &KernelCrate,
        nvshmem: Option<&nvshmem::Install>,
    ) -> Result<Built, Error> {
        let plan = self.plan(nvshmem)?;
        // JSON on stdout, so that the kernel crate's warnings can be told from the others.
        let mut cmd = self.command(&["build", "--release", "--message-format=json"], &plan);
        let out = cmd.output().map_err(|e| Error::Io {
            what: "running cargo".into(),
            source: e,
        })?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let output = diagnostics::failure_output(&stdout, &stderr);
            return Err(Error::Cargo {
                crate_dir: self.crate_dir.clone(),
                arch: plan.arch,
                rustflags: plan.rustflags,
                hint: failure_hint(&output),
                output: tail(&output, 60),
            });
        }
        let release = plan.target_dir.join(TARGET).join("release");
        let ptx = release.join(format!("{}.ptx", krate.stem));
        if !ptx.is_file() {
            return Err(Error::NoPtx(ptx));
        }
        let deps = std::fs::read_to_string(release.join(format!("{}.d", krate.stem)))
            .map(|text| dep_info_sources(&text))
            .unwrap_or_default();
        Ok(Built {
            ptx,
            deps,
            diagnostics: diagnostics::parse_output(&stdout),
        })
    }

    /// For `build.rs`: builds the PTX, copies it to `$OUT_DIR/<stem>.ptx`, sets the
    /// [`env_var`](Self::env_var) to that path for `include_str!(env!(..))`, prints
    /// `cargo:rerun-if-changed` for the kernel crate's manifest, lock file, `src/` and every
    /// source its dep-info lists, and returns the path. [`Error::NotInBuildScript`] without
    /// `$OUT_DIR`.
    ///
    /// The kernel crate's own compiler warnings are passed on as `cargo:warning=` lines, which
    /// cargo shows, one line each: `` kernels: unused variable: `x` --> src/lib.rs:10:9 `` (the
    /// package name, the message on one line, where rustc points, the file relative to the
    /// kernel crate's workspace). The first 20 are shown, then a line that counts the rest.
    /// Warnings of its dependencies and rustc's notes about the command line (such as `+ptx84`
    /// being an unstable target feature) are not; a build that fails carries all of cargo's
    /// output in its [`Error::Cargo`].
    ///
    /// The PTX itself is checked for one miscompilation no compiler warns of: a store of the
    /// low bits of a register a float instruction wrote (`(x + y).to_bits() as u32` written to
    /// memory becomes `st.global.b32 [..], %rd9` straight from the `add.rn.f64`), which ptxas
    /// and the driver's JIT compiler of CUDA 12.9 and 13.0 compile as a float-to-integer
    /// conversion instead of keeping the bits. Each such store is a `cargo:warning=` line naming
    /// the instruction, its function and its line in the PTX, and the fix (store the whole
    /// value, or pass the bits through `core::hint::black_box` first).
    pub fn build(&self) -> Result<PathBuf, Error> {
        let out_dir = std::env::var_os("OUT_DIR")
            .map(PathBuf::from)
            .ok_or(Error::NotInBuildScript)?;
        // Say what to watch before building, so a failed build is retried after an edit.
        let watch = |p: &Path| println!("cargo:rerun-if-changed={}", p.display());
        for name in [
            "Cargo.toml",
            "Cargo.lock",
            "src",
            "build.rs",
            "rust-toolchain.toml",
        ] {
            let p = self.crate_dir.join(name);
            if p.exists() {
                watch(&p);
            }
        }
        println!("cargo:rerun-if-env-changed={ARCH_ENV}");
        println!("cargo:rerun-if-env-changed={DEBUG_CHECKS_ENV}");
        if self.nvshmem {
            for var in [
                nvshmem::HOME_ENV,
                nvshmem::CACHE_ENV,
                nvshmem::NO_DOWNLOAD_ENV,
            ] {
                println!("cargo:rerun-if-env-changed={var}");
            }
        }
        let krate = self.kernel_crate()?;
        let install = self.nvshmem_install()?;
        if let Some(install) = &install {
            println!(
                "cargo:rustc-env={}={}",
                nvshmem::ROOT_ENV,
                install.root().display()
            );
        }
        let built = self.compile_crate(&krate, install.as_ref())?;
        for line in diagnostics::warning_lines(&built.diagnostics, &krate.manifest, &krate.name) {
            println!("{line}");
        }
        // The check reads the PTX; a PTX that cannot be read fails at the copy below.
        if let Ok(text) = std::fs::read_to_string(&built.ptx) {
            let found = ptx_check::float_narrow_stores(&text);
            for line in ptx_check::warning_lines(
                &found,
                &krate.name,
                &built.ptx,
                diagnostics::MAX_FORWARDED,
            ) {
                println!("{line}");
            }
        }
        let cargo_home = std::env::var_os("CARGO_HOME").map(PathBuf::from);
        for dep in &built.deps {
            // Sources of the toolchain and of registry crates do not change under a build.
            let fixed = cargo_home.as_ref().is_some_and(|h| dep.starts_with(h))
                || dep.components().any(|c| c.as_os_str() == ".rustup");
            if !fixed {
                watch(dep);
            }
        }
        let dest = out_dir.join(format!("{}.ptx", krate.stem));
        std::fs::copy(&built.ptx, &dest).map_err(|e| Error::Io {
            what: format!("copying {} to {}", built.ptx.display(), dest.display()),
            source: e,
        })?;
        let var = self
            .env_var
            .clone()
            .unwrap_or_else(|| format!("{}_PTX", krate.stem.to_uppercase()));
        println!("cargo:rustc-env={var}={}", dest.display());
        Ok(dest)
    }
}

/// The kernel crate's manifest, read once per build.
#[derive(Debug)]
struct KernelCrate {
    /// Its `Cargo.toml`.
    manifest: PathBuf,
    /// `[package] name` (what forwarded warnings are labelled with).
    name: String,
    /// The PTX file's stem ([`PtxBuilder::ptx_stem`]).
    stem: String,
}

/// What one nested cargo run takes from the builder and the environment, resolved once
/// ([`PtxBuilder::plan`]) and passed down.
#[derive(Debug)]
struct Plan {
    arch: Arch,
    /// RUSTFLAGS, with the NVSHMEM link argument when NVSHMEM is on.
    rustflags: String,
    /// CARGO_ENCODED_RUSTFLAGS, when the link argument's path has whitespace.
    encoded_rustflags: Option<String>,
    docflags: String,
    target_dir: PathBuf,
    debug_check_args: Vec<String>,
}

/// What a successful nested build left.
#[derive(Debug)]
struct Built {
    ptx: PathBuf,
    /// The sources cargo's dep-info lists for the PTX.
    deps: Vec<PathBuf>,
    /// The compiler's messages (cargo's `--message-format=json`).
    diagnostics: Vec<diagnostics::Diagnostic>,
}

/// `-C target-cpu=<arch> -C target-feature=+ptxNN`: the flags every nested run gets (its
/// RUSTDOCFLAGS, and the start of its RUSTFLAGS).
fn arch_flags(arch: Arch) -> String {
    format!(
        "-C target-cpu={arch} -C target-feature={}",
        arch.ptx_feature()
    )
}

/// A `cargo` command (`$CARGO`, else `cargo`) for a nested build, with the surrounding cargo's
/// variables that would leak into it removed (`RUSTFLAGS`, wrappers, the jobserver, the outer
/// target dir, any `CARGO_BUILD_*`, `CARGO_TARGET_*`, `CARGO_PROFILE_*`, `CARGO_CFG_*`).
/// [`PtxBuilder::cargo`] starts from it and adds the nvptx flags.
pub fn nested_cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    for (var, _) in std::env::vars_os() {
        let v = var.to_string_lossy();
        let prefixed = [
            "CARGO_BUILD_",
            "CARGO_TARGET_",
            "CARGO_PROFILE_",
            "CARGO_CFG_",
        ]
        .iter()
        .any(|p| v.starts_with(p));
        if prefixed || LEAKY_ENV.contains(&&*v) {
            cmd.env_remove(&var);
        }
    }
    cmd
}

/// `rustflags` plus `-C link-arg=<file>`, as RUSTFLAGS, and as CARGO_ENCODED_RUSTFLAGS
/// (0x1f-separated, which cargo reads before RUSTFLAGS) when the path has whitespace that
/// RUSTFLAGS would split at.
fn with_link_arg(rustflags: &str, file: &Path) -> (String, Option<String>) {
    let link_arg = format!("link-arg={}", file.display());
    let plain = format!("{rustflags} -C {link_arg}");
    let encoded = link_arg.contains(char::is_whitespace).then(|| {
        rustflags
            .split_whitespace()
            .chain(["-C", &link_arg])
            .collect::<Vec<_>>()
            .join("\x1f")
    });
    (plain, encoded)
}

/// Whether this process is the build script of a host crate built with debug assertions:
/// cargo sets `CARGO_CFG_DEBUG_ASSERTIONS` for those (recent cargo), and `PROFILE=debug` for
/// every profile that inherits from `dev`. Outside a build script (no `OUT_DIR`): false.
fn host_debug_build() -> bool {
    debug_build_from(|v| std::env::var_os(v))
}

fn debug_build_from(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> bool {
    var("OUT_DIR").is_some()
        && (var("CARGO_CFG_DEBUG_ASSERTIONS").is_some()
            || var("PROFILE").is_some_and(|p| p == "debug"))
}

/// `<target>/<profile>` of the outer build, from its `OUT_DIR`
/// (`<target>[/<triple>]/<profile>/build/<pkg>-<hash>/out`).
fn outer_profile_dir(out_dir: &Path) -> Option<PathBuf> {
    let build = out_dir
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "build"))?;
    build.parent().map(Path::to_path_buf)
}

/// The lib name rustc gives the crate's artifacts: `[lib] name`, else `[package] name`, `-` as `_`.
#[cfg(test)]
fn lib_name(manifest: &str) -> Option<String> {
    let (package, lib) = manifest_names(manifest);
    artifact_name(package.as_deref(), lib.as_deref())
}

/// `lib`, else `package`, with `-` as `_`: the name rustc gives the crate's artifacts.
fn artifact_name(package: Option<&str>, lib: Option<&str>) -> Option<String> {
    lib.or(package).map(|n| n.replace('-', "_"))
}

/// `[package] name` and `[lib] name` of a manifest, as written.
fn manifest_names(manifest: &str) -> (Option<String>, Option<String>) {
    let mut section = "";
    let (mut package, mut lib) = (None, None);
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        let Some(rest) = line.strip_prefix("name") else {
            continue;
        };
        let Some(value) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let value = value
            .split('#')
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches('"')
            .to_string();
        match section {
            "[package]" => package = Some(value),
            "[lib]" => lib = Some(value),
            _ => {}
        }
    }
    (package, lib)
}

/// The prerequisites of a make-style dep-info file (`out: a.rs b\ c.rs`), one per path.
fn dep_info_sources(text: &str) -> Vec<PathBuf> {
    let mut sources = Vec::new();
    for line in text.lines() {
        let Some((_, deps)) = line.split_once(": ") else {
            continue;
        };
        let mut current = String::new();
        let mut chars = deps.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&' ') => {
                    current.push(' ');
                    chars.next();
                }
                ' ' => {
                    if !current.is_empty() {
                        sources.push(PathBuf::from(std::mem::take(&mut current)));
                    }
                }
                _ => current.push(c),
            }
        }
        if !current.is_empty() {
            sources.push(PathBuf::from(current));
        }
    }
    sources.sort();
    sources.dedup();
    sources
}

/// What a failed build's output suggests doing, if it is a known case.
fn failure_hint(stderr: &str) -> Option<String> {
    let hints = [
        (
            "can't find crate for `core`",
            "`core` for nvptx is built from source: the toolchain needs the rust-src component",
        ),
        (
            "llvm-bitcode-linker",
            "the toolchain needs the llvm-bitcode-linker and llvm-tools components",
        ),
        (
            "unwinding panics are not supported",
            "set `panic = \"abort\"` in the kernel crate's [profile.release] (and [profile.dev])",
        ),
        (
            "ptx-sync needs",
            "ptx-sync refused the build flags (see its message above)",
        ),
    ];
    hints
        .iter()
        .find(|(needle, _)| stderr.contains(needle))
        .map(|(_, hint)| hint.to_string())
}

/// The last `n` lines of `text`.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lib_name_prefers_the_lib_section() {
        let m = "[package]\nname = \"my-kernels\" # the crate\nversion = \"0.1.0\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n";
        assert_eq!(lib_name(m).as_deref(), Some("my_kernels"));
        let m = "[package]\nname = \"my-kernels\"\n[lib]\nname = \"kern\"\n";
        assert_eq!(lib_name(m).as_deref(), Some("kern"));
        assert_eq!(lib_name("[lib]\ncrate-type = []\n"), None);
    }

    #[test]
    fn dep_info_lists_each_source_once() {
        let d = "/t/k.ptx: /src/lib.rs /src/a\\ b.rs /dev/x.rs\n\n/t/k.d: /src/lib.rs\n";
        let got = dep_info_sources(d);
        let want: Vec<PathBuf> = ["/dev/x.rs", "/src/a b.rs", "/src/lib.rs"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn outer_target_dir_from_out_dir() {
        let out = Path::new("/w/target/debug/build/app-0123/out");
        assert_eq!(
            outer_profile_dir(out),
            Some(PathBuf::from("/w/target/debug"))
        );
        let cross = Path::new("/w/target/x86_64-unknown-linux-gnu/release/build/app-1/out");
        assert_eq!(
            outer_profile_dir(cross),
            Some(PathBuf::from("/w/target/x86_64-unknown-linux-gnu/release"))
        );
    }

    #[test]
    fn flags_follow_arch_and_toolchain() {
        let tc = |minor| Toolchain {
            rustc: "rustc".into(),
            version: (1, minor, 0),
            host: "x86_64-unknown-linux-gnu".into(),
            sysroot: "/".into(),
        };
        let b = PtxBuilder::new("k").arch(Arch::Sm80);
        assert_eq!(
            b.rustflags(&tc(95)).unwrap(),
            "-C target-cpu=sm_80 -C target-feature=+ptx84 -Zmir-enable-passes=-JumpThreading"
        );
        assert_eq!(
            b.rustflags(&tc(99)).unwrap(),
            "-C target-cpu=sm_80 -C target-feature=+ptx84"
        );
        let forced = b.clone().convergence_workaround(true);
        assert!(forced
            .rustflags(&tc(99))
            .unwrap()
            .ends_with("-JumpThreading"));
    }

    #[test]
    fn debug_checks_follow_the_host_profile_unless_chosen() {
        let env = |pairs: &'static [(&str, &str)]| {
            move |v: &str| pairs.iter().find(|(k, _)| *k == v).map(|(_, x)| x.into())
        };
        assert!(debug_build_from(env(&[
            ("OUT_DIR", "/o"),
            ("PROFILE", "debug")
        ])));
        assert!(debug_build_from(env(&[
            ("OUT_DIR", "/o"),
            ("PROFILE", "release"),
            ("CARGO_CFG_DEBUG_ASSERTIONS", "")
        ])));
        assert!(!debug_build_from(env(&[
            ("OUT_DIR", "/o"),
            ("PROFILE", "release")
        ])));
        assert!(
            !debug_build_from(env(&[("PROFILE", "debug")])),
            "not a build script"
        );
        let on = PtxBuilder::new("k").debug_checks(true);
        assert_eq!(
            on.debug_check_args().unwrap(),
            [
                "--config",
                "profile.release.package.ptx-sync.debug-assertions=true",
                "--config",
                "profile.release.package.ptx-sync.overflow-checks=false"
            ]
        );
        let off = PtxBuilder::new("k").debug_checks(false);
        assert_eq!(
            off.debug_check_args().unwrap(),
            [
                "--config",
                "profile.release.package.ptx-sync.debug-assertions=false"
            ]
        );
    }

    /// The NVSHMEM link argument joins the other flags in RUSTFLAGS; a path with a space goes
    /// (also) in CARGO_ENCODED_RUSTFLAGS, one flag per 0x1f-separated field.
    #[test]
    fn nvshmem_bitcode_is_a_link_arg() {
        let base = "-C target-cpu=sm_90 -C target-feature=+ptx84";
        let (plain, encoded) = with_link_arg(base, Path::new("/n/lib/libnvshmem_device.bc"));
        assert_eq!(
            plain,
            "-C target-cpu=sm_90 -C target-feature=+ptx84 -C link-arg=/n/lib/libnvshmem_device.bc"
        );
        assert_eq!(encoded, None);
        let (_, encoded) = with_link_arg(base, Path::new("/my dir/libnvshmem_device.bc"));
        let fields: Vec<&str> = encoded.as_deref().unwrap().split('\x1f').collect();
        assert_eq!(
            fields,
            [
                "-C",
                "target-cpu=sm_90",
                "-C",
                "target-feature=+ptx84",
                "-C",
                "link-arg=/my dir/libnvshmem_device.bc"
            ]
        );
        // Off (the default), nothing is looked for.
        assert_eq!(PtxBuilder::new("k").nvshmem_install().unwrap(), None);
    }

    #[test]
    fn errors_say_what_to_do() {
        let missing = PtxBuilder::new("/nonexistent/kernels");
        let e = missing.compile().unwrap_err().to_string();
        assert!(
            e.contains("/nonexistent/kernels") && e.contains("Cargo.toml"),
            "{e}"
        );
        assert!(failure_hint("error[E0463]: can't find crate for `core`")
            .unwrap()
            .contains("rust-src"));
        assert_eq!(failure_hint("something else"), None);
    }
}
