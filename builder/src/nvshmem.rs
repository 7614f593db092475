//! Finding NVSHMEM for kernels that call it, and fetching the pinned release when none is
//! installed.
//!
//! A kernel crate built with ptx-sync's `nvshmem` feature declares NVSHMEM's device functions
//! as `extern "C"`; they are resolved when the nvptx link gets NVSHMEM's LLVM bitcode
//! (`-C link-arg=<root>/lib/libnvshmem_device.bc`, which
//! [`PtxBuilder::nvshmem`](crate::PtxBuilder::nvshmem) passes). The host side opens
//! `<root>/lib/libnvshmem_host.so.3` at run time. Both must come from the same release, the one
//! the bindings were written for: [`VERSION`].
//!
//! Where an install is looked for, in order ([`Search`]):
//!
//! 1. `$NVSHMEM_HOME` (the directory holding `include/` and `lib/`). When it is set it is the
//!    only place looked at: a broken or wrong install there is an error, not a reason to pick
//!    another one behind the user's back.
//! 2. python3's `nvidia.nvshmem` package (`pip install nvidia-nvshmem-cu13==3.4.5`).
//! 3. A copy fetched earlier, `<dir>/nvshmem-3.4.5`, for each cache dir:
//!    `$PTX_SYNC_NVSHMEM_CACHE`, then `<cargo target dir>/ptx-sync-nvshmem` of the running
//!    program (where a build script's [`find_or_fetch`] puts it).
//!
//! [`find_or_fetch`] then downloads the pinned wheel ([`WHEELS`]) from PyPI into its cache
//! dir, with python3's standard library, checked against the pinned sha256.
//!
//! ```no_run
//! let nvshmem = ptx_sync_build::nvshmem::find_installed()?;
//! println!("NVSHMEM {:?} at {}", nvshmem.version(), nvshmem.root().display());
//! # Ok::<(), ptx_sync_build::Error>(())
//! ```

use crate::Error;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The NVSHMEM release ptx-sync's bindings were written for. An install of another
/// major.minor is refused ([`Error::NvshmemVersion`]); the patch level may differ.
pub const VERSION: (u32, u32, u32) = (3, 4, 5);

/// The PyPI package that carries NVSHMEM for CUDA 13.
pub const PACKAGE: &str = "nvidia-nvshmem-cu13";

/// The version of [`PACKAGE`] that is fetched: [`VERSION`].
pub const PACKAGE_VERSION: &str = "3.4.5";

/// Names an NVSHMEM install (the directory holding `include/` and `lib/`); when set it is the
/// only place looked at.
pub const HOME_ENV: &str = "NVSHMEM_HOME";

/// A directory holding a fetched `nvshmem-3.4.5/`, looked at before the running program's
/// target dir.
pub const CACHE_ENV: &str = "PTX_SYNC_NVSHMEM_CACHE";

/// What a build script with [`PtxBuilder::nvshmem`](crate::PtxBuilder::nvshmem) sets (with
/// `cargo:rustc-env`) to the root of the install it linked, so the host program opens the
/// same `libnvshmem_host.so.3`.
pub const ROOT_ENV: &str = "PTX_SYNC_NVSHMEM_HOME";

/// Set (to anything but `0` or empty) to keep [`find_or_fetch`] from downloading NVSHMEM;
/// the same switch that keeps the project's tools from downloading ptxas.
pub const NO_DOWNLOAD_ENV: &str = "PTX_SYNC_NO_DOWNLOAD";

/// The name of a build script's cache dir under the outer cargo target dir.
pub const CACHE_DIR_NAME: &str = "ptx-sync-nvshmem";

/// One pinned wheel file of [`PACKAGE`] [`PACKAGE_VERSION`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wheel {
    /// The machine it is for, as `std::env::consts::ARCH` names it.
    pub arch: &'static str,
    /// The file name on PyPI.
    pub filename: &'static str,
    /// Its sha256, pinned here: a download is checked against it and against PyPI's.
    pub sha256: &'static str,
}

/// The Linux wheels of [`PACKAGE`] [`PACKAGE_VERSION`] (NVIDIA publishes no others).
pub const WHEELS: [Wheel; 2] = [
    Wheel {
        arch: "x86_64",
        filename:
            "nvidia_nvshmem_cu13-3.4.5-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl",
        sha256: "290f0a2ee94c9f3687a02502f3b9299a9f9fe826e6d0287ee18482e78d495b80",
    },
    Wheel {
        arch: "aarch64",
        filename:
            "nvidia_nvshmem_cu13-3.4.5-py3-none-manylinux2014_aarch64.manylinux_2_17_aarch64.whl",
        sha256: "6dc2a197f38e5d0376ad52cd1a2a3617d3cdc150fd5966f4aee9bcebb1d68fe9",
    },
];

impl Wheel {
    /// The wheel for this machine, if NVIDIA publishes one (Linux on x86_64 or aarch64).
    pub fn for_this_machine() -> Option<Wheel> {
        if !cfg!(target_os = "linux") {
            return None;
        }
        WHEELS
            .into_iter()
            .find(|w| w.arch == std::env::consts::ARCH)
    }
}

/// `nvshmem-3.4.5`: the directory a fetch leaves in its cache dir.
pub fn cache_subdir() -> String {
    format!("nvshmem-{PACKAGE_VERSION}")
}

/// The command that installs the pinned NVSHMEM by hand.
pub fn pip_install() -> String {
    format!("python3 -m pip install {PACKAGE}=={PACKAGE_VERSION}")
}

/// Where an [`Install`] was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// `$NVSHMEM_HOME`.
    Home,
    /// python3's `nvidia.nvshmem` package.
    Python,
    /// A copy fetched earlier into a cache dir.
    Cache,
    /// Downloaded just now by [`find_or_fetch`].
    Download,
    /// A root given to [`Install::open`] by the caller.
    Given,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Source::Home => "$NVSHMEM_HOME",
            Source::Python => "python3's nvidia.nvshmem package",
            Source::Cache => "a fetched copy",
            Source::Download => "downloaded from PyPI",
            Source::Given => "the given path",
        })
    }
}

/// The files an install must have, relative to its root. `lib/libnvshmem_device.a` is not
/// among them: it serves nvcc's `-rdc` device link, which a Rust build does not do.
const REQUIRED: [&str; 3] = [
    "include/non_abi/nvshmem_version.h",
    "lib/libnvshmem_device.bc",
    "lib/libnvshmem_host.so.3",
];

/// An NVSHMEM install of a [`VERSION`]-compatible release with the files a Rust build and
/// its host program use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Install {
    root: PathBuf,
    version: (u32, u32, u32),
    source: Source,
}

impl Install {
    /// Checks the install at `root` (the directory holding `include/` and `lib/`): the files
    /// a Rust build and its host program use are there (`include/non_abi/nvshmem_version.h`,
    /// `lib/libnvshmem_device.bc`, `lib/libnvshmem_host.so.3`; [`Error::NvshmemInvalid`] names
    /// a missing one) and the version header says a release of [`VERSION`]'s major.minor
    /// ([`Error::NvshmemVersion`]; the patch level may differ).
    pub fn open(root: impl Into<PathBuf>, source: Source) -> Result<Install, Error> {
        let root = root.into();
        let invalid = |why: String| Error::NvshmemInvalid {
            root: root.clone(),
            why,
        };
        if !root.is_dir() {
            return Err(invalid("no such directory".into()));
        }
        for file in REQUIRED {
            if !root.join(file).is_file() {
                return Err(invalid(format!("{file} is missing")));
            }
        }
        let header = root.join(REQUIRED[0]);
        let text = std::fs::read_to_string(&header)
            .map_err(|e| invalid(format!("reading {}: {e}", REQUIRED[0])))?;
        let version = parse_version_header(&text)
            .map_err(|why| invalid(format!("{}: {why}", REQUIRED[0])))?;
        if (version.0, version.1) != (VERSION.0, VERSION.1) {
            return Err(Error::NvshmemVersion {
                found: version,
                expected: VERSION,
                root,
            });
        }
        Ok(Install {
            root,
            version,
            source,
        })
    }

    /// The directory holding `include/` and `lib/`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The release, from `include/non_abi/nvshmem_version.h`.
    pub fn version(&self) -> (u32, u32, u32) {
        self.version
    }

    /// Where it was found.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// `lib/libnvshmem_device.bc`: NVSHMEM's device library as LLVM bitcode
    /// (nvptx64-nvidia-cuda), linked into a kernel's PTX by `-C link-arg=<this>`.
    pub fn bitcode(&self) -> PathBuf {
        self.lib_dir().join("libnvshmem_device.bc")
    }

    /// `lib/libnvshmem_host.so.3`: the host library a program opens to start NVSHMEM
    /// (`nvshmemx_hostlib_init_attr`) and register a loaded module (`nvshmemx_cumodule_init`).
    pub fn host_library(&self) -> PathBuf {
        self.lib_dir().join("libnvshmem_host.so.3")
    }

    /// `lib/libnvshmem_device.a`: the device library for nvcc's `-rdc` link (not used by a
    /// Rust build, and not checked to exist).
    pub fn device_archive(&self) -> PathBuf {
        self.lib_dir().join("libnvshmem_device.a")
    }

    /// `include/`: NVSHMEM's headers.
    pub fn include_dir(&self) -> PathBuf {
        self.root.join("include")
    }

    /// `lib/`: the libraries, and the bootstrap and transport plugins the host library opens
    /// from its own directory.
    pub fn lib_dir(&self) -> PathBuf {
        self.root.join("lib")
    }
}

/// (major, minor, patch) from the `#define NVSHMEM_VENDOR_{MAJOR,MINOR,PATCH}_VERSION n` lines
/// of `nvshmem_version.h`.
fn parse_version_header(text: &str) -> Result<(u32, u32, u32), String> {
    let define = |part: &str| -> Result<u32, String> {
        let name = format!("NVSHMEM_VENDOR_{part}_VERSION");
        let value = text
            .lines()
            // The preprocessor allows blanks between `#` and `define`.
            .filter_map(|l| {
                l.trim()
                    .strip_prefix('#')?
                    .trim_start()
                    .strip_prefix("define")
            })
            .find_map(|rest| {
                let mut words = rest.split_whitespace();
                (words.next() == Some(name.as_str())).then(|| words.next())
            })
            .ok_or_else(|| format!("no `#define {name}`"))?;
        value
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("`#define {name}` is not a number"))
    };
    Ok((define("MAJOR")?, define("MINOR")?, define("PATCH")?))
}

/// The places an install is looked for, in order. [`Search::from_env`] fills it from the
/// environment the way [`find_installed`] does; tests and tools fill it by hand.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Search {
    /// `$NVSHMEM_HOME`: when set, the only place looked at.
    pub nvshmem_home: Option<PathBuf>,
    /// The python to ask for its `nvidia.nvshmem` package (`python3`); `None` skips it.
    pub python: Option<PathBuf>,
    /// Directories that may hold a fetched `nvshmem-3.4.5/`, in order.
    pub caches: Vec<PathBuf>,
    /// Whether [`Search::find_or_fetch`] may download ([`NO_DOWNLOAD_ENV`] says no).
    pub allow_download: bool,
}

impl Search {
    /// `$NVSHMEM_HOME` (when set and not empty), `python3`, the caches `$PTX_SYNC_NVSHMEM_CACHE`
    /// and `<target dir>/ptx-sync-nvshmem` of the running program's cargo target dir (found
    /// from its path), and downloads unless [`NO_DOWNLOAD_ENV`] is set.
    pub fn from_env() -> Search {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let mut caches: Vec<PathBuf> = var(CACHE_ENV).map(PathBuf::from).into_iter().collect();
        if let Some(target) = std::env::current_exe()
            .ok()
            .and_then(|exe| exe_target_dir(&exe))
        {
            caches.push(target.join(CACHE_DIR_NAME));
        }
        Search {
            nvshmem_home: var(HOME_ENV).map(PathBuf::from),
            python: Some("python3".into()),
            caches,
            allow_download: !download_disabled(),
        }
    }

    /// The first usable install, or [`Error::NvshmemNotFound`] listing every place tried and
    /// why each was passed over. A set [`nvshmem_home`](Self::nvshmem_home) is the only place
    /// looked at, and its own error (missing file, wrong version) is returned as is.
    pub fn find(&self) -> Result<Install, Error> {
        let mut tried = Vec::new();
        match self.find_in(&self.caches, &mut tried)? {
            Some(install) => Ok(install),
            None => Err(not_found(tried)),
        }
    }

    /// [`find`](Self::find), also looking in `cache`; when nothing is found, downloads the
    /// pinned wheel ([`WHEELS`]) into `cache/nvshmem-3.4.5` (unless
    /// [`allow_download`](Self::allow_download) is false: then [`Error::NvshmemNotFound`]
    /// says so) and returns that install. A failed download is [`Error::NvshmemFetch`], which
    /// lists the places tried before it too.
    pub fn find_or_fetch(&self, cache: &Path) -> Result<Install, Error> {
        let mut caches = self.caches.clone();
        if !caches.iter().any(|c| c == cache) {
            caches.push(cache.to_path_buf());
        }
        let mut tried = Vec::new();
        if let Some(install) = self.find_in(&caches, &mut tried)? {
            return Ok(install);
        }
        if !self.allow_download {
            tried.push(format!(
                "download into {}: not done, ${NO_DOWNLOAD_ENV} is set",
                cache.join(cache_subdir()).display()
            ));
            return Err(not_found(tried));
        }
        let python = self.python.clone().unwrap_or_else(|| "python3".into());
        fetch_with(&python, cache).map_err(|e| match e {
            Error::NvshmemFetch {
                wheel, cache, why, ..
            } => Error::NvshmemFetch {
                wheel,
                cache,
                why,
                tried,
            },
            other => other,
        })
    }

    /// Every place in order: `Ok(None)` when none is usable, each place pushed to `tried`
    /// with why it was passed over. A set `$NVSHMEM_HOME`'s own failure is the `Err`.
    fn find_in(
        &self,
        caches: &[PathBuf],
        tried: &mut Vec<String>,
    ) -> Result<Option<Install>, Error> {
        if let Some(home) = &self.nvshmem_home {
            return Install::open(home, Source::Home).map(Some);
        }
        if let Some(python) = &self.python {
            match python_package_dirs(python) {
                Ok(dirs) => {
                    for dir in dirs {
                        let place =
                            format!("{}'s nvidia.nvshmem at {}", python.display(), dir.display());
                        if let Some(found) = attempt(place, &dir, Source::Python, tried) {
                            return Ok(Some(found));
                        }
                    }
                }
                Err(why) => tried.push(format!("{}'s nvidia.nvshmem: {why}", python.display())),
            }
        }
        for cache in caches {
            let root = cache.join(cache_subdir());
            let place = format!("fetched copy {}", root.display());
            if let Some(found) = attempt(place, &root, Source::Cache, tried) {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }
}

/// The install at `root`, or `None` with `place` and why it is unusable pushed to `tried`.
fn attempt(place: String, root: &Path, source: Source, tried: &mut Vec<String>) -> Option<Install> {
    Install::open(root, source)
        .map_err(|e| tried.push(format!("{place}: {}", short_reason(&e))))
        .ok()
}

/// [`Error::NvshmemNotFound`] with every place `tried` and what to install.
fn not_found(tried: Vec<String>) -> Error {
    Error::NvshmemNotFound {
        tried,
        hint: install_hint(),
    }
}

/// The part of an install error that says why, for one line of a "tried" list.
fn short_reason(e: &Error) -> String {
    match e {
        Error::NvshmemInvalid { why, .. } => why.clone(),
        Error::NvshmemVersion {
            found, expected, ..
        } => format!(
            "NVSHMEM {}.{}.{}, not {}.{}",
            found.0, found.1, found.2, expected.0, expected.1
        ),
        other => other.to_string(),
    }
}

/// How to get NVSHMEM by hand; part of every "not found" error.
pub fn install_hint() -> String {
    format!(
        "install NVSHMEM {}.{}.{} with `{}`, or set ${HOME_ENV} to an NVSHMEM {}.{} install \
         (the directory holding include/ and lib/); PtxBuilder::nvshmem(true) downloads the pinned \
         wheel into the target dir unless ${NO_DOWNLOAD_ENV} is set",
        VERSION.0,
        VERSION.1,
        VERSION.2,
        pip_install(),
        VERSION.0,
        VERSION.1
    )
}

/// [`Search::from_env`]`.find()`: `$NVSHMEM_HOME`, python3's `nvidia.nvshmem`, then fetched
/// copies in `$PTX_SYNC_NVSHMEM_CACHE` and the running program's target dir. Never downloads.
pub fn find_installed() -> Result<Install, Error> {
    Search::from_env().find()
}

/// [`Search::from_env`]`.find_or_fetch(cache)`: [`find_installed`]'s places and `cache`, then
/// the pinned wheel downloaded into `cache/nvshmem-3.4.5` (unless `$PTX_SYNC_NO_DOWNLOAD` is
/// set). A build script passes `<target dir>/ptx-sync-nvshmem`, where a program built by the
/// same cargo finds it again.
pub fn find_or_fetch(cache: &Path) -> Result<Install, Error> {
    Search::from_env().find_or_fetch(cache)
}

/// Downloads the pinned wheel for this machine into `cache/nvshmem-3.4.5` with `python3`, and
/// opens it. A usable copy already there is returned without downloading; an unusable one (a
/// file deleted from it) is replaced.
pub fn fetch(cache: &Path) -> Result<Install, Error> {
    fetch_with(Path::new("python3"), cache)
}

/// Whether [`NO_DOWNLOAD_ENV`] forbids downloading.
pub fn download_disabled() -> bool {
    std::env::var_os(NO_DOWNLOAD_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// The directories python's `nvidia.nvshmem` package spans (a namespace package: the wheel
/// has no `__init__.py`, so `__path__` may list several). No python, or no package, is an
/// `Err` with the reason in a few words.
fn python_package_dirs(python: &Path) -> Result<Vec<PathBuf>, String> {
    let script = "import nvidia.nvshmem\nfor p in nvidia.nvshmem.__path__: print(p)";
    let out = Command::new(python)
        .args(["-c", script])
        .output()
        .map_err(|e| format!("could not run {}: {e}", python.display()))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let last = stderr.lines().last().unwrap_or("failed").trim();
        return Err(if last.contains("ModuleNotFoundError") {
            "not installed".into()
        } else {
            last.to_string()
        });
    }
    let dirs: Vec<PathBuf> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(PathBuf::from)
        .collect();
    if dirs.is_empty() {
        return Err("the package lists no directory".into());
    }
    Ok(dirs)
}

/// The cargo target dir an executable was built in: the nearest ancestor holding
/// `CACHEDIR.TAG` (cargo writes one into every target dir it creates), else the parent of
/// `<profile>/` for `<target>/<profile>/[deps|examples/]<exe>`.
fn exe_target_dir(exe: &Path) -> Option<PathBuf> {
    let dir = exe.parent()?;
    if let Some(tagged) = tagged_target_dir(dir) {
        return Some(tagged);
    }
    let profile = if dir
        .file_name()
        .is_some_and(|n| n == "deps" || n == "examples")
    {
        dir.parent()?
    } else {
        dir
    };
    profile.parent().map(Path::to_path_buf)
}

/// The nearest ancestor of `dir` (itself included) that holds cargo's `CACHEDIR.TAG`.
fn tagged_target_dir(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|a| a.join("CACHEDIR.TAG").is_file())
        .map(Path::to_path_buf)
}

/// The outer build's target dir from a build script's `OUT_DIR`
/// (`<target>[/<triple>]/<profile>/build/<pkg>-<hash>/out`): the nearest ancestor holding
/// `CACHEDIR.TAG`, else the parent of `<profile>/`.
pub(crate) fn out_dir_target_dir(out_dir: &Path) -> Option<PathBuf> {
    if let Some(tagged) = tagged_target_dir(out_dir) {
        return Some(tagged);
    }
    crate::outer_profile_dir(out_dir)?
        .parent()
        .map(Path::to_path_buf)
}

/// The cache a build script fetches into: `<outer target dir>/ptx-sync-nvshmem`, or `None`
/// outside a build script.
pub fn build_script_cache() -> Option<PathBuf> {
    let out = std::env::var_os("OUT_DIR")?;
    out_dir_target_dir(Path::new(&out)).map(|t| t.join(CACHE_DIR_NAME))
}

fn fetch_with(python: &Path, cache: &Path) -> Result<Install, Error> {
    let dest = cache.join(cache_subdir());
    let name = Wheel::for_this_machine()
        .map(|w| w.filename.to_string())
        .unwrap_or_else(|| format!("{PACKAGE}=={PACKAGE_VERSION}"));
    let failed = |why: String| Error::NvshmemFetch {
        wheel: name.clone(),
        cache: cache.to_path_buf(),
        why,
        tried: Vec::new(),
    };
    let Some(wheel) = Wheel::for_this_machine() else {
        return Err(failed(format!(
            "NVIDIA publishes {PACKAGE} {PACKAGE_VERSION} for Linux on x86_64 and aarch64 only, \
             not {} on {}",
            std::env::consts::OS,
            std::env::consts::ARCH
        )));
    };
    if let Ok(install) = Install::open(&dest, Source::Cache) {
        return Ok(install);
    }
    std::fs::create_dir_all(cache)
        .map_err(|e| failed(format!("creating {}: {e}", cache.display())))?;
    // Several build scripts (one per host crate, or `cargo test` and `cargo build` at once)
    // may want the same 60 MB: one downloads, the others wait and then find its copy.
    let lock_path = cache.join(format!("{}.lock", cache_subdir()));
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| failed(format!("{}: {e}", lock_path.display())))?;
    lock.lock()
        .map_err(|e| failed(format!("locking {}: {e}", lock_path.display())))?;
    if let Ok(install) = Install::open(&dest, Source::Cache) {
        return Ok(install);
    }
    eprintln!(
        "ptx-sync-build: NVSHMEM {PACKAGE_VERSION} not found; downloading {} (60 MB) from PyPI \
         into {} (once; {NO_DOWNLOAD_ENV}=1 turns this off)",
        wheel.filename,
        dest.display()
    );
    let out = Command::new(python)
        .arg("-c")
        .arg(FETCH_NVSHMEM_PY)
        .arg(PACKAGE)
        .arg(PACKAGE_VERSION)
        .arg(wheel.filename)
        .arg(wheel.sha256)
        .arg(cache)
        .arg(cache_subdir())
        .output()
        .map_err(|e| failed(format!("could not run {}: {e}", python.display())))?;
    drop(lock);
    if !out.status.success() {
        let mut text = out.stdout;
        text.extend_from_slice(&out.stderr);
        return Err(failed(crate::tail(&String::from_utf8_lossy(&text), 5)));
    }
    Install::open(&dest, Source::Download)
}

/// Fetches the pinned wheel with python3's standard library alone (no pip):
/// `python3 -c FETCH_NVSHMEM_PY PACKAGE VERSION FILENAME SHA256 CACHE SUBDIR` finds FILENAME in
/// PyPI's JSON for the release, refuses it unless PyPI's sha256 is the pinned SHA256, downloads
/// it into CACHE, checks the download against SHA256, extracts what a Rust build and its host
/// program use (`lib/*.bc`, `lib/*.so.3`, `lib/*.a`, `include/**` of `nvidia/nvshmem/`) into a
/// temporary directory in CACHE and renames it to CACHE/SUBDIR (moving an unusable SUBDIR
/// aside first). Nothing is left behind on failure, and a reader never sees a half-extracted
/// SUBDIR. The caller holds CACHE's lock.
const FETCH_NVSHMEM_PY: &str = r#"
import fnmatch, glob, hashlib, json, os, shutil, sys, zipfile
import urllib.error, urllib.parse, urllib.request

package, version, filename, pinned, cache, subdir = sys.argv[1:7]
PREFIX = "nvidia/nvshmem/"
WANTED = ("lib/*.bc", "lib/*.so.3", "lib/*.a", "include/*")

def get_files(url, key):
    """The release's files from a JSON API document, with absolute URLs."""
    req = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        doc = json.load(r)
    files = doc["urls"] if key is None else doc["releases"].get(key, [])
    return [dict(f, url=urllib.parse.urljoin(url, f["url"])) for f in files]

def wanted(rel):
    # lib/ holds files only (no subdirectories), include/ a tree: fnmatch's * spans "/".
    if rel.startswith("lib/") and "/" in rel[4:]:
        return False
    return any(fnmatch.fnmatchcase(rel, pattern) for pattern in WANTED)

def main():
    try:
        files = get_files(f"https://pypi.org/pypi/{package}/{version}/json", None)
    except urllib.error.HTTPError as e:
        if e.code != 404:
            raise
        # Some mirrors serve only the project's document, which lists every release.
        files = get_files(f"https://pypi.org/pypi/{package}/json", version)
    match = [f for f in files if f["filename"] == filename]
    if not match:
        names = ", ".join(f["filename"] for f in files) or "none"
        sys.exit(f"PyPI lists no {filename} for {package} {version} (files: {names})")
    wheel = match[0]
    published = wheel["digests"]["sha256"]
    if published != pinned:
        sys.exit(f"PyPI says {filename} has sha256 {published}, pinned {pinned}: refusing it")
    final = os.path.join(cache, subdir)
    # The caller holds the cache's lock, so a temporary left here is from a fetch that was
    # killed: remove it rather than let each one keep 60 MB.
    for stale in glob.glob(os.path.join(glob.escape(cache), f".{subdir}.*.tmp*")):
        if os.path.isdir(stale):
            shutil.rmtree(stale, ignore_errors=True)
        else:
            os.remove(stale)
    tmp = os.path.join(cache, f".{subdir}.{os.getpid()}.tmp")
    whl = tmp + ".whl"
    try:
        digest = hashlib.sha256()
        with urllib.request.urlopen(wheel["url"], timeout=60) as r, open(whl, "wb") as out:
            while chunk := r.read(1 << 20):
                digest.update(chunk)
                out.write(chunk)
        if digest.hexdigest() != pinned:
            sys.exit(f"{filename}: downloaded sha256 {digest.hexdigest()}, pinned {pinned}")
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        count = 0
        with zipfile.ZipFile(whl) as z:
            for info in z.infolist():
                if info.is_dir() or not info.filename.startswith(PREFIX):
                    continue
                rel = info.filename[len(PREFIX):]
                if ".." in rel.split("/") or not wanted(rel):
                    continue
                dest = os.path.join(tmp, *rel.split("/"))
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with z.open(info) as src, open(dest, "wb") as out:
                    shutil.copyfileobj(src, out)
                # Shared objects are loaded with dlopen, which wants them readable and
                # executable; the rest read-only like any installed header or library.
                os.chmod(dest, 0o755 if rel.endswith(".so.3") else 0o644)
                count += 1
        if count == 0:
            sys.exit(f"{filename} holds nothing under {PREFIX}lib or {PREFIX}include")
        if os.path.lexists(final):
            # The caller found no usable install there (a file is missing): replace it.
            old = tmp + ".old"
            os.rename(final, old)
            shutil.rmtree(old, ignore_errors=True)
        os.rename(tmp, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            os.remove(whl)
        except FileNotFoundError:
            pass

try:
    main()
except SystemExit:
    raise
except Exception as e:  # one line for the caller's message, not a traceback
    sys.exit(f"{type(e).__name__}: {e}")
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A fresh directory under the system temp dir, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            static N: AtomicUsize = AtomicUsize::new(0);
            let n = N.fetch_add(1, Ordering::Relaxed);
            let dir = std::env::temp_dir().join(format!(
                "ptx-sync-build-nvshmem-{name}-{}-{n}",
                std::process::id()
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A fake install at `root` of release `version`, with every [`REQUIRED`] file but `skip`.
    fn fake_install(root: &Path, version: (u32, u32, u32), skip: Option<&str>) {
        let header = format!(
            "#pragma once\n#define NVSHMEM_VENDOR_MAJOR_VERSION {}\n\
             #define NVSHMEM_VENDOR_MINOR_VERSION {}\n#define NVSHMEM_VENDOR_PATCH_VERSION {}\n\
             #define NVSHMEM_VENDOR_PACKAGE_VERSION 0\n",
            version.0, version.1, version.2
        );
        for file in REQUIRED {
            if Some(file) == skip {
                continue;
            }
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let text = if file.ends_with(".h") {
                &header
            } else {
                "fake"
            };
            std::fs::write(path, text).unwrap();
        }
    }

    /// A search of exactly the given places: no environment, no python.
    fn search(home: Option<&Path>, caches: &[&Path]) -> Search {
        Search {
            nvshmem_home: home.map(Path::to_path_buf),
            python: None,
            caches: caches.iter().map(|c| c.to_path_buf()).collect(),
            allow_download: false,
        }
    }

    #[test]
    fn version_header_parses_and_bad_ones_say_which_define() {
        let header = "// c\n#define NVSHMEM_VENDOR_MAJOR_VERSION 3\n\
                      #define NVSHMEM_VENDOR_MINOR_VERSION 4\n\
                      #  define   NVSHMEM_VENDOR_PATCH_VERSION   5\n\
                      #define NVSHMEM_VENDOR_PACKAGE_VERSION 0\n";
        assert_eq!(parse_version_header(header), Ok((3, 4, 5)));
        let no_minor = header.replace("MINOR", "MINOR_X");
        assert_eq!(
            parse_version_header(&no_minor),
            Err("no `#define NVSHMEM_VENDOR_MINOR_VERSION`".to_string())
        );
        let text = header.replace("PATCH_VERSION   5", "PATCH_VERSION x");
        assert_eq!(
            parse_version_header(&text),
            Err("`#define NVSHMEM_VENDOR_PATCH_VERSION` is not a number".to_string())
        );
    }

    #[test]
    fn an_explicit_root_is_found_with_its_files() {
        let tmp = TempDir::new("home");
        fake_install(&tmp.0, VERSION, None);
        let found = search(Some(&tmp.0), &[]).find().unwrap();
        assert_eq!(found.root(), tmp.0);
        assert_eq!(found.version(), VERSION);
        assert_eq!(*found.source(), Source::Home);
        let paths = [
            found.bitcode(),
            found.host_library(),
            found.device_archive(),
            found.include_dir(),
            found.lib_dir(),
        ];
        let want = [
            "lib/libnvshmem_device.bc",
            "lib/libnvshmem_host.so.3",
            "lib/libnvshmem_device.a",
            "include",
            "lib",
        ];
        assert_eq!(
            paths.map(|p| p.strip_prefix(&tmp.0).unwrap().to_path_buf()),
            want.map(PathBuf::from)
        );
        // A later patch release is accepted (the device ABI is fixed within a minor release).
        let patch = TempDir::new("patch");
        fake_install(&patch.0, (3, 4, 7), None);
        assert_eq!(
            Install::open(&patch.0, Source::Given).unwrap().version(),
            (3, 4, 7)
        );
    }

    #[test]
    fn another_minor_release_is_a_version_error() {
        for (found, dir) in [
            ((3, 8, 0), "newer"),
            ((3, 3, 24), "older"),
            ((4, 4, 5), "major"),
        ] {
            let tmp = TempDir::new(dir);
            fake_install(&tmp.0, found, None);
            let err = search(Some(&tmp.0), &[]).find().unwrap_err();
            let msg = err.to_string();
            match err {
                Error::NvshmemVersion {
                    found: f,
                    expected,
                    root,
                } => {
                    assert_eq!((f, expected, root), (found, VERSION, tmp.0.clone()));
                }
                other => panic!("{other}"),
            }
            let shown = format!("is {}.{}.{}, but", found.0, found.1, found.2);
            assert!(
                msg.contains(&shown) && msg.contains(&pip_install()),
                "{msg}"
            );
        }
    }

    #[test]
    fn a_missing_file_is_named() {
        for file in REQUIRED {
            let tmp = TempDir::new("missing");
            fake_install(&tmp.0, VERSION, Some(file));
            match Install::open(&tmp.0, Source::Given).unwrap_err() {
                Error::NvshmemInvalid { root, why } => {
                    assert_eq!((root, why), (tmp.0.clone(), format!("{file} is missing")))
                }
                other => panic!("{other}"),
            }
        }
        let gone = Install::open("/nonexistent/nvshmem", Source::Given).unwrap_err();
        assert!(
            gone.to_string()
                .contains("/nonexistent/nvshmem is not usable: no such directory"),
            "{gone}"
        );
    }

    /// `$NVSHMEM_HOME` set to a broken install is that install's error, even when a usable
    /// copy sits in a cache: the user asked for that one.
    #[test]
    fn a_broken_home_is_not_passed_over() {
        let home = TempDir::new("broken-home");
        fake_install(&home.0, VERSION, Some("lib/libnvshmem_device.bc"));
        let cache = TempDir::new("good-cache");
        fake_install(&cache.0.join(cache_subdir()), VERSION, None);
        let err = search(Some(&home.0), &[&cache.0]).find().unwrap_err();
        assert!(
            matches!(&err, Error::NvshmemInvalid { root, .. } if *root == home.0),
            "{err}"
        );
        // Without the home, the cached copy is found.
        let found = search(None, &[&cache.0]).find().unwrap();
        assert_eq!(
            (found.root(), found.source()),
            (cache.0.join(cache_subdir()).as_path(), &Source::Cache)
        );
    }

    /// Caches are tried in order; an unusable one is listed with why and the next one used.
    #[test]
    fn caches_are_tried_in_order() {
        let (empty, old, good) = (TempDir::new("c0"), TempDir::new("c1"), TempDir::new("c2"));
        fake_install(&old.0.join(cache_subdir()), (3, 3, 20), None);
        fake_install(&good.0.join(cache_subdir()), VERSION, None);
        let s = search(None, &[&empty.0, &old.0, &good.0]);
        assert_eq!(s.find().unwrap().root(), good.0.join(cache_subdir()));
        let mut tried = Vec::new();
        let found = s.find_in(&s.caches, &mut tried).unwrap().unwrap();
        assert_eq!(found.root(), good.0.join(cache_subdir()));
        assert_eq!(
            tried,
            [
                format!(
                    "fetched copy {}: no such directory",
                    empty.0.join(cache_subdir()).display()
                ),
                format!(
                    "fetched copy {}: NVSHMEM 3.3.20, not 3.4",
                    old.0.join(cache_subdir()).display()
                ),
            ]
        );
    }

    /// Nothing usable: the error lists every place with why, and says what to install.
    #[test]
    fn not_found_lists_every_place_and_what_to_install() {
        let (a, b) = (TempDir::new("nf-a"), TempDir::new("nf-b"));
        fake_install(
            &b.0.join(cache_subdir()),
            VERSION,
            Some("lib/libnvshmem_host.so.3"),
        );
        let mut s = search(None, &[&a.0, &b.0]);
        s.python = Some("/nonexistent/python3".into());
        let err = s.find().unwrap_err();
        let msg = err.to_string();
        let Error::NvshmemNotFound { tried, hint } = err else {
            panic!("{msg}")
        };
        assert_eq!(tried.len(), 3, "{msg}");
        assert!(
            tried[0].starts_with("/nonexistent/python3's nvidia.nvshmem: could not run"),
            "{msg}"
        );
        assert_eq!(
            tried[1],
            format!(
                "fetched copy {}: no such directory",
                a.0.join(cache_subdir()).display()
            )
        );
        assert_eq!(
            tried[2],
            format!(
                "fetched copy {}: lib/libnvshmem_host.so.3 is missing",
                b.0.join(cache_subdir()).display()
            )
        );
        assert_eq!(hint, install_hint());
        for needle in [
            "pip install nvidia-nvshmem-cu13==3.4.5",
            "$NVSHMEM_HOME",
            "$PTX_SYNC_NO_DOWNLOAD",
        ] {
            assert!(msg.contains(needle), "{needle} not in {msg}");
        }
        assert_eq!(msg.lines().count(), 1 + 3 + 1, "{msg}");
    }

    /// With downloads off, `find_or_fetch` looks in its cache too, and otherwise says that it
    /// did not download, and where it would have.
    #[test]
    fn find_or_fetch_uses_its_cache_and_honours_no_download() {
        let (cache, other) = (TempDir::new("fof"), TempDir::new("fof-other"));
        let s = search(None, &[&other.0]);
        let err = s.find_or_fetch(&cache.0).unwrap_err();
        let Error::NvshmemNotFound { tried, .. } = &err else {
            panic!("{err}")
        };
        assert_eq!(tried.len(), 3, "{err}");
        assert_eq!(
            tried[2],
            format!(
                "download into {}: not done, $PTX_SYNC_NO_DOWNLOAD is set",
                cache.0.join(cache_subdir()).display()
            )
        );
        fake_install(&cache.0.join(cache_subdir()), VERSION, None);
        let found = s.find_or_fetch(&cache.0).unwrap();
        assert_eq!(
            (found.root(), found.source()),
            (cache.0.join(cache_subdir()).as_path(), &Source::Cache)
        );
    }

    /// A fake python3 (a shell script printing the package's directories) stands for pip's
    /// `nvidia.nvshmem`; a python without the package is "not installed".
    #[cfg(unix)]
    #[test]
    fn python_package_is_asked_for() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = TempDir::new("python");
        let (first, second) = (
            tmp.0.join("site-a/nvidia/nvshmem"),
            tmp.0.join("site-b/nvidia/nvshmem"),
        );
        fake_install(&second, VERSION, None);
        let script = |name: &str, body: &str| {
            let path = tmp.0.join(name);
            std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            // Another test thread forking while the file was open for writing makes exec
            // fail with ETXTBSY for a moment: wait until it runs.
            for _ in 0..100 {
                match Command::new(&path).output() {
                    Err(e) if e.raw_os_error() == Some(26) => {
                        std::thread::sleep(std::time::Duration::from_millis(10))
                    }
                    _ => break,
                }
            }
            path
        };
        let good = script(
            "python-good",
            &format!("echo '{}'\necho '{}'", first.display(), second.display()),
        );
        let mut s = search(None, &[]);
        s.python = Some(good.clone());
        let found = s.find().unwrap();
        assert_eq!(
            (found.root(), found.source()),
            (second.as_path(), &Source::Python)
        );
        let mut tried = Vec::new();
        s.find_in(&[], &mut tried).unwrap();
        assert_eq!(
            tried,
            [format!(
                "{}'s nvidia.nvshmem at {}: no such directory",
                good.display(),
                first.display()
            )]
        );

        let missing = script(
            "python-bare",
            "echo \"ModuleNotFoundError: No module named 'nvidia'\" >&2\nexit 1",
        );
        s.python = Some(missing.clone());
        let Error::NvshmemNotFound { tried, .. } = s.find().unwrap_err() else {
            panic!()
        };
        assert_eq!(
            tried,
            [format!(
                "{}'s nvidia.nvshmem: not installed",
                missing.display()
            )]
        );
    }

    #[test]
    fn target_dirs_come_from_cargos_tag_or_the_layout() {
        let tmp = TempDir::new("target");
        let target = tmp.0.join("target");
        let out = target.join("x86_64-unknown-linux-gnu/debug/build/app-0123/out");
        std::fs::create_dir_all(&out).unwrap();
        // No CACHEDIR.TAG: from the layout (a cross build's OUT_DIR keeps the triple).
        assert_eq!(
            out_dir_target_dir(&out),
            Some(target.join("x86_64-unknown-linux-gnu"))
        );
        assert_eq!(
            exe_target_dir(&target.join("debug/deps/app-0123")),
            Some(target.clone())
        );
        assert_eq!(
            exe_target_dir(&target.join("debug/examples/ex")),
            Some(target.clone())
        );
        assert_eq!(
            exe_target_dir(&target.join("release/app")),
            Some(target.clone())
        );
        // With cargo's tag, wherever the artifact sits below it.
        std::fs::write(
            target.join("CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55",
        )
        .unwrap();
        assert_eq!(out_dir_target_dir(&out), Some(target.clone()));
        let cross_exe = target.join("x86_64-unknown-linux-gnu/debug/deps/app-0123");
        assert_eq!(exe_target_dir(&cross_exe), Some(target.clone()));
    }

    #[test]
    fn the_pinned_wheels_match_the_pinned_version() {
        assert_eq!(WHEELS.len(), 2);
        for w in WHEELS {
            let prefix = format!(
                "{}-{PACKAGE_VERSION}-py3-none-manylinux",
                PACKAGE.replace('-', "_")
            );
            assert!(w.filename.starts_with(&prefix), "{}", w.filename);
            assert!(
                w.filename.ends_with(&format!("_{}.whl", w.arch)),
                "{}",
                w.filename
            );
            assert_eq!(w.sha256.len(), 64);
            assert!(w
                .sha256
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        }
        let (a, b, c) = VERSION;
        assert_eq!(PACKAGE_VERSION, format!("{a}.{b}.{c}"));
        assert_eq!(cache_subdir(), "nvshmem-3.4.5");
        if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            assert_eq!(Wheel::for_this_machine(), Some(WHEELS[0]));
        }
    }

    /// Downloads the real wheel (60 MB) from PyPI into a temp dir, checks what was extracted,
    /// and that a second call finds the copy instead of downloading again. Run with
    /// `cargo test -p ptx-sync-build --lib nvshmem -- --ignored`.
    #[test]
    #[ignore = "downloads the 60 MB NVSHMEM wheel from PyPI: run with --ignored"]
    fn fetches_the_pinned_wheel() {
        let cache = TempDir::new("fetch");
        let s = Search {
            nvshmem_home: None,
            python: None,
            caches: Vec::new(),
            allow_download: true,
        };
        let got = s.find_or_fetch(&cache.0).unwrap();
        let root = cache.0.join(cache_subdir());
        assert_eq!(
            (got.root(), got.source(), got.version()),
            (root.as_path(), &Source::Download, VERSION)
        );
        let size = |p: PathBuf| std::fs::metadata(p).unwrap().len();
        assert!(size(got.bitcode()) > 10 << 20);
        assert!(size(got.host_library()) > 10 << 20);
        assert!(size(got.device_archive()) > 1 << 20);
        assert!(got.include_dir().join("nvshmem.h").is_file());
        assert!(got.lib_dir().join("nvshmem_bootstrap_uid.so.3").is_file());
        // Only lib/ and include/ under the root; only the copy and the lock in the cache.
        let names = |dir: &Path| {
            let mut v: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        assert_eq!(names(&root), ["include", "lib"]);
        assert_eq!(names(&cache.0), ["nvshmem-3.4.5", "nvshmem-3.4.5.lock"]);
        let again = s.find_or_fetch(&cache.0).unwrap();
        assert_eq!(*again.source(), Source::Cache);
        // A copy missing a file is fetched again and replaced; a killed fetch's temporary
        // is cleaned up.
        std::fs::remove_file(got.host_library()).unwrap();
        let stale = cache.0.join(".nvshmem-3.4.5.999999.tmp");
        std::fs::create_dir_all(stale.join("lib")).unwrap();
        std::fs::write(cache.0.join(".nvshmem-3.4.5.999999.tmp.whl"), "partial").unwrap();
        let repaired = s.find_or_fetch(&cache.0).unwrap();
        assert_eq!(*repaired.source(), Source::Download);
        assert!(size(repaired.host_library()) > 10 << 20);
        assert_eq!(names(&cache.0), ["nvshmem-3.4.5", "nvshmem-3.4.5.lock"]);
    }
}
