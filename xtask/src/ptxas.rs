use crate::ptx::tail;
use crate::Arch;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// How to get a ptxas; part of every "not found" error.
pub const INSTALL_HINT: &str = "install one with `python3 -m pip install nvidia-cuda-nvcc` \
    (CUDA 13: sm_75 and newer) and, for sm_70, `python3 -m pip install nvidia-cuda-nvcc-cu12` \
    (CUDA 12.9), or point $PTXAS (and $PTXAS_SM70) at a CUDA 12.4+ ptxas";

/// Finds a `ptxas` that assembles PTX ISA [`Arch::PTX_ISA`] for `arch`. Tried in order:
/// `$PTXAS_SM70` (sm_70 only), `$PTXAS`, `ptxas` on `PATH`, `/usr/local/cuda/bin/ptxas`, then
/// the pip wheels in Python's `nvidia` package: `nvidia/cu13/bin/ptxas` (`nvidia-cuda-nvcc`,
/// CUDA 13) and `nvidia/cuda_nvcc/bin/ptxas` (`nvidia-cuda-nvcc-cu12`, CUDA 12.9). Each
/// candidate must assemble a one-line kernel for `arch`: CUDA 13 dropped sm_70, and a ptxas
/// older than CUDA 12.4 rejects the ISA. Results are cached per process.
pub fn find_ptxas(arch: Arch) -> Result<PathBuf, String> {
    static CACHE: Mutex<Vec<(Arch, Result<PathBuf, String>)>> = Mutex::new(Vec::new());
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, found)) = cache.iter().find(|(a, _)| *a == arch) {
        return found.clone();
    }
    let found = search(arch);
    cache.push((arch, found.clone()));
    found
}

fn search(arch: Arch) -> Result<PathBuf, String> {
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
    let mut rejected = Vec::new();
    for c in candidates {
        if !c.is_file() || rejected.iter().any(|(r, _)| *r == c) {
            continue;
        }
        match probe(&c, arch) {
            Ok(()) => return Ok(c),
            Err(why) => rejected.push((c, why)),
        }
    }
    let (major, minor) = Arch::PTX_ISA;
    let mut msg = format!("no ptxas that assembles PTX ISA {major}.{minor} for {arch} was found");
    for (path, why) in rejected {
        msg += &format!("\n  {} rejected: {why}", path.display());
    }
    Err(format!("{msg}\n{INSTALL_HINT}"))
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
