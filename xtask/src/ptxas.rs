//! Finding a `ptxas`, and provisioning the pinned one into `target/tools` when none is found.

use crate::{workspace_root, Arch};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A pip wheel of NVIDIA's that carries a `ptxas`: what [`find_ptxas`] downloads into
/// `target/tools` when no ptxas is found. `.ci/run` pip-installs the same versions
/// (`NVCC13`, `NVCC12`); `tests/tests/ptxas.rs` checks that they agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtxasWheel {
    /// The PyPI package.
    pub package: &'static str,
    /// The pinned version.
    pub version: &'static str,
    /// The CUDA major release, for messages (`CUDA 13`).
    pub cuda: &'static str,
    /// ptxas's path inside the wheel (and so under a `pip install --target` directory).
    pub member: &'static str,
    /// Where `.ci/run` pip-installs it, relative to the workspace root.
    pub ci_dir: &'static str,
}

/// `nvidia-cuda-nvcc` 13.5.37: CUDA 13's ptxas, sm_75 and newer (CUDA 13 dropped sm_70).
pub const PTXAS_CUDA13: PtxasWheel = PtxasWheel {
    package: "nvidia-cuda-nvcc",
    version: "13.5.37",
    cuda: "CUDA 13",
    member: "nvidia/cu13/bin/ptxas",
    ci_dir: "target/ci/cuda13",
};

/// `nvidia-cuda-nvcc-cu12` 12.9.86: CUDA 12.9's ptxas, the last release that assembles sm_70.
pub const PTXAS_CUDA12: PtxasWheel = PtxasWheel {
    package: "nvidia-cuda-nvcc-cu12",
    version: "12.9.86",
    cuda: "CUDA 12",
    member: "nvidia/cuda_nvcc/bin/ptxas",
    ci_dir: "target/ci/cuda12",
};

/// Set (to anything but `0` or empty) to keep [`find_ptxas`] from downloading ptxas into
/// `target/tools`: a check that needs the missing ptxas then fails (`cargo xtask`) or is
/// ignored with the reason (`cargo test`, see `tests/build.rs`).
pub const NO_DOWNLOAD_ENV: &str = "PTX_SYNC_NO_DOWNLOAD";

impl PtxasWheel {
    /// The wheel whose ptxas is provisioned for `arch`: CUDA 12 for sm_70, CUDA 13 otherwise.
    pub fn for_arch(arch: Arch) -> PtxasWheel {
        if arch == Arch::Sm70 {
            PTXAS_CUDA12
        } else {
            PTXAS_CUDA13
        }
    }

    /// `target/tools/<package>-<version>`, where [`find_ptxas`] puts this wheel's ptxas.
    pub fn tools_dir(self) -> PathBuf {
        tools_dir().join(format!("{}-{}", self.package, self.version))
    }

    /// The provisioned ptxas: `target/tools/<package>-<version>/<member>`.
    pub fn tools_ptxas(self) -> PathBuf {
        self.tools_dir().join(self.member)
    }

    /// The ptxas `.ci/run` installs: `target/ci/cuda1X/<member>`.
    pub fn ci_ptxas(self) -> PathBuf {
        workspace_root().join(self.ci_dir).join(self.member)
    }

    /// The pip command that installs this wheel by hand.
    pub fn pip_install(self) -> String {
        format!("python3 -m pip install {}=={}", self.package, self.version)
    }
}

/// `<workspace>/target/tools`: the tools the project provisions for itself. Always under the
/// workspace's own `target/`, whatever `CARGO_TARGET_DIR` says, so every build shares them.
pub fn tools_dir() -> PathBuf {
    workspace_root().join("target").join("tools")
}

/// Whether [`NO_DOWNLOAD_ENV`] forbids downloading.
pub fn download_disabled() -> bool {
    std::env::var_os(NO_DOWNLOAD_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// How to get a ptxas by hand; part of every "not found" error.
pub fn install_hint() -> String {
    format!(
        "install one by hand with `{}` (CUDA 13: sm_75 and newer) and, for sm_70, `{}` \
         (CUDA 12.9), or point $PTXAS (and $PTXAS_SM70) at a CUDA 12.4+ ptxas; \
         unless ${NO_DOWNLOAD_ENV} is set, the pinned ones are downloaded from PyPI into {} \
         when none is found",
        PTXAS_CUDA13.pip_install(),
        PTXAS_CUDA12.pip_install(),
        tools_dir().display()
    )
}

/// Finds a `ptxas` that assembles PTX ISA [`Arch::PTX_ISA`] for `arch`. Tried in order:
/// `$PTXAS_SM70` (sm_70 only), `$PTXAS`, `ptxas` on `PATH`, `/usr/local/cuda/bin/ptxas`, the
/// pip wheels in Python's `nvidia` package (`nvidia/cu13/bin/ptxas`, `nvidia/cuda_nvcc/bin/ptxas`),
/// then the project's own copies of the wheel pinned for `arch` ([`PtxasWheel::for_arch`]:
/// [`PTXAS_CUDA13`] for sm_75 and newer, [`PTXAS_CUDA12`] for sm_70): `target/ci/cuda1X`
/// (what `.ci/run` installs), then `target/tools`. Each candidate must
/// assemble a one-line kernel for `arch`: CUDA 13 dropped sm_70, and a ptxas older than CUDA
/// 12.4 rejects the ISA. When none does, the pinned wheel for `arch`
/// ([`PtxasWheel::for_arch`]) is downloaded into `target/tools` (python3's standard library,
/// sha256-checked; not when [`NO_DOWNLOAD_ENV`] is set), and the error says why that failed and
/// what to install by hand. Results are cached per process.
pub fn find_ptxas(arch: Arch) -> Result<PathBuf, String> {
    static CACHE: Mutex<Vec<(Arch, Result<PathBuf, String>)>> = Mutex::new(Vec::new());
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, found)) = cache.iter().find(|(a, _)| *a == arch) {
        return found.clone();
    }
    let found = search(arch).or_else(|rejected| {
        let wheel = PtxasWheel::for_arch(arch);
        let (major, minor) = Arch::PTX_ISA;
        let mut msg =
            format!("no ptxas that assembles PTX ISA {major}.{minor} for {arch} was found");
        for (path, why) in &rejected {
            msg += &format!("\n  {} rejected: {why}", path.display());
        }
        match provision(wheel, arch) {
            // Already there, and already rejected above.
            Ok(ptxas) if rejected.iter().any(|(r, _)| *r == ptxas) => {}
            Ok(ptxas) => match probe(&ptxas, arch) {
                Ok(()) => return Ok(ptxas),
                Err(why) => msg += &format!("\n  {} rejected: {why}", ptxas.display()),
            },
            Err(why) => msg += &format!("\n{why}"),
        }
        Err(format!("{msg}\n{}", install_hint()))
    });
    cache.push((arch, found.clone()));
    found
}

/// The first candidate that assembles for `arch`, or every candidate that was tried and why it
/// was rejected.
fn search(arch: Arch) -> Result<PathBuf, Vec<(PathBuf, String)>> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if arch == Arch::Sm70 {
        candidates.extend(std::env::var_os("PTXAS_SM70").map(PathBuf::from));
    }
    candidates.extend(std::env::var_os("PTXAS").map(PathBuf::from));
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("ptxas")));
    }
    candidates.push("/usr/local/cuda/bin/ptxas".into());
    for dir in python_nvidia_dirs() {
        candidates.push(dir.join("cu13/bin/ptxas"));
        candidates.push(dir.join("cuda_nvcc/bin/ptxas"));
    }
    // The project's own copies: only the wheel pinned for `arch`, so the same ptxas checks an
    // arch whichever arch was provisioned first (CUDA 12.9 also assembles sm_75..sm_90).
    let wheel = PtxasWheel::for_arch(arch);
    candidates.push(wheel.ci_ptxas());
    candidates.push(wheel.tools_ptxas());
    let mut rejected: Vec<(PathBuf, String)> = Vec::new();
    for c in candidates {
        if !c.is_file() || rejected.iter().any(|(r, _)| *r == c) {
            continue;
        }
        match probe(&c, arch) {
            Ok(()) => return Ok(c),
            Err(why) => rejected.push((c, why)),
        }
    }
    Err(rejected)
}

/// The directories of Python's `nvidia` namespace package (where the pip wheels put CUDA).
fn python_nvidia_dirs() -> Vec<PathBuf> {
    let script = "import nvidia\nfor p in nvidia.__path__: print(p)";
    for python in ["python3", "python"] {
        if let Ok(out) = Command::new(python).args(["-c", script]).output() {
            if out.status.success() {
                let text = String::from_utf8_lossy(&out.stdout);
                return text.lines().map(PathBuf::from).collect();
            }
        }
    }
    Vec::new()
}

/// Downloads `wheel`'s ptxas (the one pinned for `arch`) into [`PtxasWheel::tools_ptxas`] unless
/// it is there already; once per process (a failure is remembered), one process at a time.
fn provision(wheel: PtxasWheel, arch: Arch) -> Result<PathBuf, String> {
    static DONE: Mutex<Vec<(PtxasWheel, Result<PathBuf, String>)>> = Mutex::new(Vec::new());
    let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, result)) = done.iter().find(|(w, _)| *w == wheel) {
        return result.clone();
    }
    let result = provision_uncached(wheel, arch);
    done.push((wheel, result.clone()));
    result
}

fn provision_uncached(wheel: PtxasWheel, arch: Arch) -> Result<PathBuf, String> {
    let ptxas = wheel.tools_ptxas();
    if ptxas.is_file() {
        return Ok(ptxas);
    }
    let what = format!("{} {} ({} ptxas)", wheel.package, wheel.version, wheel.cuda);
    if download_disabled() {
        return Err(format!(
            "${NO_DOWNLOAD_ENV} is set, so the pinned {what} was not downloaded into {}",
            wheel.tools_dir().display()
        ));
    }
    let failed = |why: String| {
        format!(
            "downloading the pinned {what} from PyPI into {} failed: {why}",
            wheel.tools_dir().display()
        )
    };
    // Another process (a parallel test binary, the tests' build script, `cargo xtask`) may be
    // downloading the same wheel: wait for it, then use what it left.
    let lock_path = tools_dir().join(format!("{}-{}.lock", wheel.package, wheel.version));
    std::fs::create_dir_all(tools_dir())
        .map_err(|e| failed(format!("{}: {e}", tools_dir().display())))?;
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| failed(format!("{}: {e}", lock_path.display())))?;
    lock.lock()
        .map_err(|e| failed(format!("locking {}: {e}", lock_path.display())))?;
    if ptxas.is_file() {
        return Ok(ptxas);
    }
    eprintln!(
        "ptx-sync: no ptxas for {arch} found; downloading {what} from PyPI into {} \
         (once; {NO_DOWNLOAD_ENV}=1 turns this off)",
        wheel.tools_dir().display()
    );
    let out = Command::new("python3")
        .arg("-c")
        .arg(FETCH_WHEEL_PY)
        .arg(wheel.package)
        .arg(wheel.version)
        .arg(wheel.member)
        .arg(wheel.tools_dir())
        .output()
        .map_err(|e| failed(format!("could not run python3: {e}")))?;
    drop(lock);
    if !out.status.success() {
        let mut text = out.stdout;
        text.extend_from_slice(&out.stderr);
        return Err(failed(format!("(offline?) {}", tail(&text, 5))));
    }
    if !ptxas.is_file() {
        return Err(failed(format!("{} is missing afterwards", ptxas.display())));
    }
    Ok(ptxas)
}

/// Fetches one file of a pinned wheel with python3's standard library alone (no pip):
/// `python3 -c FETCH_WHEEL_PY PACKAGE VERSION MEMBER DIR` reads the release's files from PyPI's
/// JSON API, takes the manylinux wheel of this machine's architecture, checks its sha256,
/// and extracts MEMBER to DIR/MEMBER (executable, with the wheel's timestamp) through a temporary
/// name and an atomic rename. Nothing is written before the download succeeds.
const FETCH_WHEEL_PY: &str = r#"
import hashlib, json, os, platform, shutil, sys, time, zipfile
import urllib.error, urllib.parse, urllib.request

package, version, member, dest_dir = sys.argv[1:5]
dest = os.path.join(dest_dir, member)

def get_files(url, key):
    """The release's files from a JSON API document, with absolute URLs."""
    req = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        doc = json.load(r)
    files = doc["urls"] if key is None else doc["releases"].get(key, [])
    return [dict(f, url=urllib.parse.urljoin(url, f["url"])) for f in files]

def main():
    if not sys.platform.startswith("linux"):
        sys.exit(f"the {package} wheels' ptxas is provisioned for Linux only, not {sys.platform}")
    machine = platform.machine().lower()
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    try:
        files = get_files(f"https://pypi.org/pypi/{package}/{version}/json", None)
    except urllib.error.HTTPError as e:
        if e.code != 404:
            raise
        # Some mirrors serve only the project's document, which lists every release.
        files = get_files(f"https://pypi.org/pypi/{package}/json", version)
    wheels = [
        f for f in files
        if f["filename"].endswith(f"_{machine}.whl") and "-manylinux" in f["filename"]
    ]
    if not wheels:
        names = ", ".join(f["filename"] for f in files) or "none"
        sys.exit(f"{package} {version} has no manylinux {machine} wheel on PyPI (files: {names})")
    wheel = wheels[0]
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    part = f"{dest}.{os.getpid()}.part"
    whl = f"{part}.whl"
    try:
        digest = hashlib.sha256()
        with urllib.request.urlopen(wheel["url"], timeout=60) as r, open(whl, "wb") as out:
            while chunk := r.read(1 << 20):
                digest.update(chunk)
                out.write(chunk)
        want = wheel["digests"]["sha256"]
        if digest.hexdigest() != want:
            sys.exit(f"{wheel['filename']}: sha256 {digest.hexdigest()}, PyPI says {want}")
        with zipfile.ZipFile(whl) as z:
            info = z.getinfo(member)
            with z.open(info) as src, open(part, "wb") as out:
                shutil.copyfileobj(src, out)
        os.chmod(part, 0o755)
        stamp = time.mktime(info.date_time + (0, 0, -1))
        os.utime(part, (stamp, stamp))
        os.replace(part, dest)
    finally:
        for p in (whl, part):
            try:
                os.remove(p)
            except FileNotFoundError:
                pass

try:
    main()
except SystemExit:
    raise
except Exception as e:  # one line for the caller's message, not a traceback
    sys.exit(f"{type(e).__name__}: {e}")
"#;

/// The last `n` lines of `bytes`, as text.
fn tail(bytes: &[u8], n: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// A path in the temp dir unique to this process and call.
fn temp_path(stem: &str, ext: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("ptx-sync-{stem}-{}-{n}.{ext}", std::process::id()))
}

/// Runs `ptxas -arch=<arch> -o <temp cubin> <ptx>`; the error carries ptxas's output.
fn assemble(ptxas: &Path, ptx: &Path, arch: Arch) -> Result<(), String> {
    let cubin = temp_path(&arch.to_string(), "cubin");
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-o")
        .arg(&cubin)
        .arg(ptx)
        .output()
        .map_err(|e| format!("could not run {}: {e}", ptxas.display()))?;
    let _ = std::fs::remove_file(&cubin);
    if out.status.success() {
        return Ok(());
    }
    let mut text = out.stdout;
    text.extend_from_slice(&out.stderr);
    Err(format!(
        "ptxas -arch={arch} {} failed:\n{}",
        ptx.display(),
        tail(&text, 80)
    ))
}

/// Whether `ptxas` assembles an empty kernel for `arch` at the PTX ISA we emit.
fn probe(ptxas: &Path, arch: Arch) -> Result<(), String> {
    let (major, minor) = Arch::PTX_ISA;
    let ptx = temp_path("probe", "ptx");
    let src = format!(
        ".version {major}.{minor}\n.target {arch}\n.address_size 64\n\
         .visible .entry ptx_sync_probe() {{ ret; }}\n"
    );
    std::fs::write(&ptx, src).map_err(|e| format!("{}: {e}", ptx.display()))?;
    let result = assemble(ptxas, &ptx, arch);
    let _ = std::fs::remove_file(&ptx);
    result.map_err(|e| {
        let last = e.lines().last().unwrap_or_default().trim().to_string();
        format!("{last} ({})", version(ptxas))
    })
}

/// `release 13.5, V13.5.37` from `ptxas --version`, or what went wrong.
fn version(ptxas: &Path) -> String {
    match Command::new(ptxas).arg("--version").output() {
        Ok(out) => String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|l| {
                l.split_once("release ")
                    .map(|(_, v)| format!("release {v}"))
            })
            .unwrap_or_else(|| "unknown version".into()),
        Err(e) => e.to_string(),
    }
}

/// Assembles `ptx` for `arch` with [`find_ptxas`]'s ptxas into a temporary cubin (deleted
/// afterwards); the error carries ptxas's output, or the install hint when there is no ptxas.
pub fn ptxas_check(ptx: &Path, arch: Arch) -> Result<(), String> {
    let ptxas = find_ptxas(arch)?;
    assemble(&ptxas, ptx, arch).map_err(|e| format!("{e}\n(ptxas: {})", ptxas.display()))
}
