//! The driver library, checked before cudarc calls into it.
//!
//! cudarc (built with `dynamic-loading`) opens the first of its candidate names for
//! `libcuda.so` that loads, then looks each entry point up on its first call and panics where
//! one is missing ("Missing symbol cuInit"). A file called `libcuda.so` that is not NVIDIA's
//! driver, first on the library path, would make the first driver call panic. So this module
//! opens the same library first, once, and checks that it exports every entry point this crate
//! reaches, before anything goes through cudarc.
//!
//! Why look the symbols up instead of catching cudarc's panic with `catch_unwind` and a silenced
//! panic hook: a program built with `panic = "abort"` cannot catch it; the hook is
//! process-wide, so silencing it would also hide other threads' panics meanwhile; and cudarc
//! resolves each symbol on its own first call, so a library that lacks only `cuLaunchKernelEx`
//! would pass a caught `cuInit` and panic later, in the middle of a launch. One check of the
//! whole list turns each of these into an `Err` before the first call.

use cudarc::driver::{result, sys, DriverError};
use std::sync::OnceLock;

/// Every driver entry point this crate reaches, by the name cudarc looks it up under: called
/// directly (`sys::cu*`, `result::*`) or through the cudarc methods used here (context and
/// stream creation, module loading, allocation, copies, events, occupancy, and the `Drop`s
/// that free them). A test checks that every direct call in this crate's source is listed.
/// All are in CUDA 12.0 drivers, older than the 12.4 that running kernels needs.
pub(crate) const SYMBOLS: &[&str] = &[
    // Initialization, errors, devices.
    "cuInit",
    "cuGetErrorString",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetAttribute",
    "cuDeviceGetName",
    // Contexts (cudarc retains the primary context and binds it to each calling thread).
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    // cudarc synchronizes the context when it makes the first extra stream.
    "cuCtxSynchronize",
    // Streams and the events cudarc orders buffers with.
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuStreamWaitEvent",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventQuery",
    "cuEventSynchronize",
    "cuEventDestroy_v2",
    // Modules, kernels, launches.
    "cuModuleLoadData",
    "cuModuleGetFunction",
    "cuModuleGetGlobal_v2",
    "cuModuleUnload",
    // The driver module behind a kernel, for nvshmemx_cumodule_init (feature `nvshmem`).
    "cuFuncGetModule",
    "cuFuncSetAttribute",
    "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cuOccupancyMaxPotentialClusterSize",
    "cuOccupancyMaxActiveClusters",
    "cuLaunchKernelEx",
    // Device memory (stream-ordered where the GPU has memory pools, else plain) and copies.
    "cuMemAllocAsync",
    "cuMemAlloc_v2",
    "cuMemsetD8Async",
    "cuMemsetD8_v2",
    "cuMemFreeAsync",
    "cuMemFree_v2",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyHtoD_v2",
    "cuMemcpyDtoH_v2",
    // Mapped host memory.
    "cuMemHostAlloc",
    "cuMemFreeHost",
    "cuMemHostGetDevicePointer_v2",
    // Managed memory (freed with cuMemFree_v2).
    "cuMemAllocManaged",
    // Several GPUs.
    "cuDeviceCanAccessPeer",
    "cuDeviceGetP2PAttribute",
    "cuCtxEnablePeerAccess",
];

/// `Ok` where the library cudarc will use exports every entry point of [`SYMBOLS`]; `Err` says
/// which library and what is missing, or that none loads. Checked once per process: the
/// library cudarc opened stays its library.
pub(crate) fn check_library() -> Result<(), &'static str> {
    static CHECK: OnceLock<Result<(), String>> = OnceLock::new();
    CHECK
        .get_or_init(open_and_check)
        .as_ref()
        .map(|_| ())
        .map_err(|why| why.as_str())
}

fn open_and_check() -> Result<(), String> {
    // cudarc's own search, in its order: the first name that loads is the library it uses.
    let names = ["cuda", "nvcuda"]
        .iter()
        .flat_map(|lib| cudarc::get_lib_name_candidates(lib));
    // SAFETY: opening a library runs its initializers, as cudarc's own search does next.
    let Some((name, library)) = names.into_iter().find_map(|name: String| {
        let library = unsafe { libloading::Library::new(&name) }.ok()?;
        Some((name, library))
    }) else {
        return Err("libcuda.so could not be loaded (no NVIDIA driver on this machine)".into());
    };
    let missing: Vec<&str> = SYMBOLS
        .iter()
        .copied()
        // SAFETY: only looks the address up; nothing is called through it.
        .filter(|symbol| unsafe { library.get::<*const ()>(symbol.as_bytes()) }.is_err())
        .collect();
    // cudarc opens the same file and keeps it open for the life of the process; unloading ours
    // in between would only make the loader run its initializers twice.
    std::mem::forget(library);
    if missing.is_empty() {
        return Ok(());
    }
    Err(missing_symbols(&name, &missing))
}

/// The message for a library that lacks `missing` (at most five named).
fn missing_symbols(name: &str, missing: &[&str]) -> String {
    let shown = missing
        .iter()
        .take(5)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    let more = match missing.len().saturating_sub(5) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let how_many = if missing.len() == SYMBOLS.len() {
        format!(
            "none of the {} driver entry points this crate calls",
            SYMBOLS.len()
        )
    } else {
        format!(
            "{} of the {} driver entry points this crate calls",
            missing.len(),
            SYMBOLS.len()
        )
    };
    format!(
        "{name}, the first library of that name that loads here, is not a usable NVIDIA driver: \
         it exports {how_many} ({shown}{more} missing). Take the directory that holds it off \
         LD_LIBRARY_PATH, or install an NVIDIA driver for CUDA 12.4 or newer"
    )
}

/// What [`crate::driver_available`] answers: the library check, then `cuInit`.
pub(crate) fn init() -> Result<(), String> {
    check_library()?;
    // Every symbol is there, so cudarc's loader does not panic.
    result::init().map_err(|e| init_failed(&e))
}

/// What to do when `cuInit` says `CUDA_ERROR_STUB_LIBRARY`.
const STUB_HINT: &str = "the libcuda.so found first is the CUDA toolkit's stub (its `stubs` \
    directory, e.g. /usr/local/cuda/lib64/stubs), which is for linking only: take the `stubs` \
    directory off LD_LIBRARY_PATH so that the driver's libcuda.so.1 loads";

/// The message for a failed `cuInit`, saying what to do where the code tells.
fn init_failed(e: &DriverError) -> String {
    let what = crate::error::describe(e);
    match e.0 {
        sys::CUresult::CUDA_ERROR_STUB_LIBRARY => format!("cuInit failed: {what}: {STUB_HINT}"),
        _ => format!("cuInit failed: {what}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// Set in the child process that [`fake_driver_libraries_are_errors_not_panics`] starts.
    const CHILD: &str = "PTX_SYNC_LOADER_TEST_CHILD";

    /// The driver functions each `result::` function this crate calls directly goes to.
    const RESULT_FNS: &[(&str, &[&str])] = &[
        ("init", &["cuInit"]),
        ("device::get_count", &["cuDeviceGetCount"]),
        ("malloc_host", &["cuMemHostAlloc"]),
        ("free_host", &["cuMemFreeHost"]),
        ("malloc_managed", &["cuMemAllocManaged"]),
        ("malloc_sync", &["cuMemAlloc_v2"]),
        ("free_sync", &["cuMemFree_v2"]),
        ("memset_d8_sync", &["cuMemsetD8_v2"]),
        ("memcpy_htod_sync", &["cuMemcpyHtoD_v2"]),
        ("memcpy_dtoh_sync", &["cuMemcpyDtoH_v2"]),
        ("memcpy_htod_async", &["cuMemcpyHtoDAsync_v2"]),
        ("memcpy_dtoh_async", &["cuMemcpyDtoHAsync_v2"]),
    ];

    fn sources(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path, text));
            }
        }
    }

    /// The identifier (with `::` paths) that starts at `text`.
    fn path_at(text: &str) -> &str {
        let end = text
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(text.len());
        text[..end].trim_end_matches(':')
    }

    /// Every `sys::cu*` and `result::*` call in this crate's source reaches only listed entry
    /// points: a new driver call without its symbol here fails this test, not a user's program.
    #[test]
    fn every_direct_driver_call_is_checked() {
        let mut files = Vec::new();
        sources(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        let (mut sys_calls, mut result_calls) = (0, 0);
        for (path, text) in &files {
            // Skip this file's tables, whose strings name the calls.
            let text = if path.ends_with("loader.rs") {
                text.split("mod tests").next().unwrap()
            } else {
                text
            };
            for (at, _) in text.match_indices("sys::cu") {
                let name = path_at(&text[at + "sys::".len()..]);
                if name == "cu" {
                    continue; // `sys::cu*` in a comment
                }
                assert!(
                    SYMBOLS.contains(&name),
                    "{}: sys::{name} is not in loader::SYMBOLS",
                    path.display()
                );
                sys_calls += 1;
            }
            for (at, _) in text.match_indices("result::") {
                let before = text[..at].chars().next_back();
                if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    continue; // `std::result::...` and the like
                }
                let name = path_at(&text[at + "result::".len()..]);
                if name == "DriverError" || name.starts_with("Result") || name.is_empty() {
                    continue;
                }
                let Some((_, symbols)) = RESULT_FNS.iter().find(|(f, _)| *f == name) else {
                    panic!(
                        "{}: result::{name} is not in the test's RESULT_FNS (add the driver \
                         functions it calls there and to loader::SYMBOLS)",
                        path.display()
                    );
                };
                for s in *symbols {
                    assert!(
                        SYMBOLS.contains(s),
                        "result::{name} calls {s}, not in SYMBOLS"
                    );
                }
                result_calls += 1;
            }
        }
        // The scan finds the calls at all (7 and 12 when this test was written).
        assert!(
            sys_calls >= 5 && result_calls >= 5,
            "{sys_calls} sys, {result_calls} result"
        );
        // And SYMBOLS names each entry point once.
        let mut sorted = SYMBOLS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), SYMBOLS.len(), "a symbol listed twice");
    }

    #[test]
    fn missing_symbol_messages_say_which_and_what_to_do() {
        let all: Vec<&str> = SYMBOLS.to_vec();
        let msg = missing_symbols("libcuda.so", &all);
        assert!(
            msg.starts_with(&format!(
                "libcuda.so, the first library of that name that loads here, is not a usable \
                 NVIDIA driver: it exports none of the {} driver entry points this crate calls \
                 (cuInit, cuGetErrorString, cuDeviceGetCount, cuDeviceGet, cuDeviceGetAttribute \
                 and {} more missing).",
                SYMBOLS.len(),
                SYMBOLS.len() - 5
            )),
            "{msg}"
        );
        assert!(msg
            .ends_with("off LD_LIBRARY_PATH, or install an NVIDIA driver for CUDA 12.4 or newer"));
        let msg = missing_symbols("libcuda.so.1", &["cuLaunchKernelEx"]);
        assert!(
            msg.contains(&format!(
                "it exports 1 of the {} driver entry points this crate calls (cuLaunchKernelEx missing)",
                SYMBOLS.len()
            )),
            "{msg}"
        );
        let stub = init_failed(&DriverError(sys::CUresult::CUDA_ERROR_STUB_LIBRARY));
        assert!(
            stub.starts_with("cuInit failed: CUDA_ERROR_STUB_LIBRARY"),
            "{stub}"
        );
        assert!(
            stub.contains("take the `stubs` directory off LD_LIBRARY_PATH"),
            "{stub}"
        );
        let other = init_failed(&DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE));
        assert!(
            other.starts_with("cuInit failed: CUDA_ERROR_NO_DEVICE"),
            "{other}"
        );
        assert!(!other.contains("stubs"), "{other}");
    }

    /// In the child process: what each way in answers, one line each.
    #[test]
    fn child_reports_the_driver_check() {
        if std::env::var_os(CHILD).is_none() {
            return; // only in the child that the test below starts
        }
        println!("driver_available: {:?}", crate::driver_available());
        let open = crate::Device::open(0).map(|_| ());
        println!(
            "open: {}",
            open.map_or_else(|e| e.to_string(), |()| "Ok".into())
        );
        let count = crate::Device::count();
        println!(
            "count: {}",
            count.map_or_else(|e| e.to_string(), |n| n.to_string())
        );
    }

    /// Builds a shared library from `c` as `libcuda.so` and `libcuda.so.1` in a directory of its
    /// own, runs [`child_reports_the_driver_check`] with that directory first on the library
    /// path, and returns its output, after checking that it exited 0 without a panic.
    fn run_child_with(case: &str, c: &str) -> Option<String> {
        let dir =
            std::env::temp_dir().join(format!("ptx-sync-fake-cuda-{}-{case}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("fake.c"), c).unwrap();
        let built = Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(dir.join("libcuda.so"))
            .arg(dir.join("fake.c"))
            .output();
        let built = match built {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                eprintln!("skipped: no C compiler (`cc`) to build a fake libcuda.so");
                return None;
            }
            other => other.unwrap(),
        };
        assert!(
            built.status.success(),
            "cc: {}",
            String::from_utf8_lossy(&built.stderr)
        );
        std::fs::copy(dir.join("libcuda.so"), dir.join("libcuda.so.1")).unwrap();
        let out = Command::new(std::env::current_exe().unwrap())
            .args([
                "loader::tests::child_reports_the_driver_check",
                "--exact",
                "--nocapture",
            ])
            .env(CHILD, "1")
            .env("LD_LIBRARY_PATH", &dir)
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        );
        assert!(
            out.status.success() && !stderr.contains("panicked") && !stdout.contains("panicked"),
            "{case}: child failed ({:?})\nstdout:\n{stdout}\nstderr:\n{stderr}",
            out.status
        );
        Some(stdout)
    }

    /// A `libcuda.so` that exports nothing, one that exports only `cuInit`, and one that
    /// answers every call as the toolkit's stub does: each is a typed error, in a process of
    /// its own (the library check runs once per process).
    #[test]
    fn fake_driver_libraries_are_errors_not_panics() {
        let mut checks = 0;
        let mut expect = |stdout: &str, line: &str| {
            assert!(
                stdout.lines().any(|l| l == line),
                "no line `{line}` in:\n{stdout}"
            );
            checks += 1;
        };
        let n = SYMBOLS.len();
        let none = format!(
            "libcuda.so, the first library of that name that loads here, is not a usable NVIDIA \
             driver: it exports none of the {n} driver entry points this crate calls (cuInit, \
             cuGetErrorString, cuDeviceGetCount, cuDeviceGet, cuDeviceGetAttribute and {} more \
             missing). Take the directory that holds it off LD_LIBRARY_PATH, or install an NVIDIA \
             driver for CUDA 12.4 or newer",
            n - 5
        );
        let Some(empty) = run_child_with("empty", "int ptx_sync_not_a_driver;\n") else {
            return;
        };
        expect(
            &empty,
            &format!("driver_available: Err(NoDriver({none:?}))"),
        );
        expect(&empty, &format!("open: no CUDA driver: {none}"));
        expect(&empty, &format!("count: no CUDA driver: {none}"));

        let only_init =
            run_child_with("init-only", "int cuInit(unsigned f) { return 0; }\n").unwrap();
        let some = format!(
            "libcuda.so, the first library of that name that loads here, is not a usable NVIDIA \
             driver: it exports {} of the {n} driver entry points this crate calls \
             (cuGetErrorString, cuDeviceGetCount, cuDeviceGet, cuDeviceGetAttribute, \
             cuDeviceGetName and {} more missing). Take the directory that holds it off \
             LD_LIBRARY_PATH, or install an NVIDIA driver for CUDA 12.4 or newer",
            n - 1,
            n - 6
        );
        expect(
            &only_init,
            &format!("driver_available: Err(NoDriver({some:?}))"),
        );
        expect(&only_init, &format!("open: no CUDA driver: {some}"));

        // Every entry point, each answering CUDA_ERROR_STUB_LIBRARY (34), as the toolkit's
        // stub does.
        let stub: String = SYMBOLS
            .iter()
            .map(|s| format!("int {s}(void) {{ return 34; }}\n"))
            .collect();
        let stub = run_child_with("stub", &stub).unwrap();
        // The stub's cuGetErrorString fails too, so the code comes without the driver's text.
        let why = format!("cuInit failed: CUDA_ERROR_STUB_LIBRARY: {STUB_HINT}");
        expect(&stub, &format!("driver_available: Err(NoDriver({why:?}))"));
        expect(&stub, &format!("open: no CUDA driver: {why}"));
        expect(&stub, &format!("count: no CUDA driver: {why}"));
        assert_eq!(checks, 8);
    }
}
