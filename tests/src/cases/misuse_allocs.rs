//! Bad allocations and bad PTX on a real GPU: the driver's out-of-memory, sizes refused before
//! the driver, PTX text and files the driver cannot load, names a module does not have, GPUs
//! the machine does not have. Each answers its exact error, and the GPU works after all of them.

use crate::{Ctx, GpuTest, KERNELS_PTX};
use ptx_sync_host::cudarc::driver::sys::CUresult;
use ptx_sync_host::cudarc::driver::{DriverError, PushKernelArg};
use ptx_sync_host::{Device, Error, MappedBuffer, PeerBuffer};
use ptx_sync_testkit::{one_thread, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);

/// "Ok", or the error with its variant.
fn shown<T>(r: &ptx_sync_host::Result<T>) -> String {
    match r {
        Ok(_) => "Ok".into(),
        Err(e) => format!("{e:?}"),
    }
}

fn driver_code<T>(r: &ptx_sync_host::Result<T>) -> Option<CUresult> {
    match r {
        Err(Error::Driver {
            source: DriverError(c),
            ..
        }) => Some(*c),
        _ => None,
    }
}

/// Expected: zeros::<u8>(1 TiB) -> driver CUDA_ERROR_OUT_OF_MEMORY; zeros(0) and upload(&[])
/// -> `Error::Empty("buffer length")`; MappedBuffer::new(0) -> `Error::Empty("mapped buffer
/// length")`; PeerBuffer::new(0) -> `Error::Empty("peer buffer length")`;
/// zeros::<u64>(usize::MAX / 8 + 2) (whose byte count wraps to 8), zeros::<u64>(usize::MAX / 4),
/// zeros::<u32>(isize::MAX / 4 + 1), MappedBuffer::<u64>::new(usize::MAX / 2) and
/// PeerBuffer::<u64>::new(usize::MAX / 4) -> `Error::TooLarge`; then a launch and download
/// work.
fn allocations(ctx: &Ctx) -> Result<String> {
    let gpu = &ctx.gpu;
    let mut bad = Vec::new();
    let oom = gpu.zeros::<u8>(1 << 40);
    if driver_code(&oom) != Some(CUresult::CUDA_ERROR_OUT_OF_MEMORY) {
        bad.push(format!(
            "zeros(1 TiB): expected CUDA_ERROR_OUT_OF_MEMORY, got {}",
            shown(&oom)
        ));
    }
    let empty = [
        (
            "zeros(0)",
            shown(&gpu.zeros::<u32>(0)),
            "Empty(\"buffer length\")",
        ),
        (
            "upload(&[])",
            shown(&gpu.upload::<u32>(&[])),
            "Empty(\"buffer length\")",
        ),
        (
            "MappedBuffer::new(0)",
            shown(&MappedBuffer::<u32>::new(gpu, 0)),
            "Empty(\"mapped buffer length\")",
        ),
        (
            "PeerBuffer::new(0)",
            shown(&PeerBuffer::<u32>::new(gpu, 0)),
            "Empty(\"peer buffer length\")",
        ),
    ];
    for (what, got, want) in empty {
        if got != want {
            bad.push(format!("{what}: expected {want}, got {got}"));
        }
    }
    let too_large = [
        (
            "zeros::<u64>(usize::MAX / 8 + 2)",
            shown(&gpu.zeros::<u64>(usize::MAX / 8 + 2)),
        ),
        (
            "zeros::<u64>(usize::MAX / 4)",
            shown(&gpu.zeros::<u64>(usize::MAX / 4)),
        ),
        (
            "zeros::<u32>(isize::MAX / 4 + 1)",
            shown(&gpu.zeros::<u32>(isize::MAX as usize / 4 + 1)),
        ),
        (
            "MappedBuffer::<u64>::new(usize::MAX / 2)",
            shown(&MappedBuffer::<u64>::new(gpu, usize::MAX / 2)),
        ),
        (
            "PeerBuffer::<u64>::new(usize::MAX / 4)",
            shown(&PeerBuffer::<u64>::new(gpu, usize::MAX / 4)),
        ),
    ];
    for (what, got) in too_large {
        if !got.starts_with("TooLarge") {
            bad.push(format!("{what}: expected TooLarge, got {got}"));
        }
    }
    still_works(ctx).map_err(|e| format!("after the bad allocations: {e}"))?;
    if !bad.is_empty() {
        return Err(bad.join("; ").into());
    }
    Ok("1 TiB: CUDA_ERROR_OUT_OF_MEMORY; zero lengths: Empty; overflowing sizes: TooLarge; the GPU worked after".into())
}

/// A launch of `misuse_fault_write` and a download of what it wrote.
fn still_works(ctx: &Ctx) -> Result<()> {
    let writer = ctx.kernel("misuse_fault_write")?;
    let out = ctx.gpu.zeros::<u32>(1)?;
    // SAFETY: misuse_fault_write(ptr, value) to a live one-word buffer.
    unsafe {
        ctx.gpu
            .launch_builder(&writer)
            .arg(&out)
            .arg(42u32)
            .launch(one_thread())
    }?;
    ctx.gpu.wait(TIMEOUT)?;
    let got = ctx.gpu.download(&out)?;
    if got != [42] {
        return Err(format!("the kernel wrote {got:?}, expected [42]").into());
    }
    Ok(())
}

/// PTX the driver must refuse, and its code: text that does not start like PTX (or none) is
/// taken for a binary image (CUDA_ERROR_INVALID_IMAGE, as an H200 answers); the first half of
/// the suite's PTX, the suite's PTX for `.target sm_200`, and text with a NUL byte (refused by
/// the host crate before the driver) are CUDA_ERROR_INVALID_PTX.
fn bad_texts(ctx: &Ctx) -> Result<Vec<(&'static str, String, CUresult)>> {
    let real = std::fs::read_to_string(ctx.ptx_dir.join(KERNELS_PTX))?;
    let Some(target) = real.lines().find(|l| l.trim_start().starts_with(".target")) else {
        return Err("the suite's PTX has no .target line".into());
    };
    let future = real.replacen(target, ".target sm_200", 1);
    let (image, invalid) = (
        CUresult::CUDA_ERROR_INVALID_IMAGE,
        CUresult::CUDA_ERROR_INVALID_PTX,
    );
    Ok(vec![
        ("garbage", "this is not PTX\n".into(), image),
        ("empty", String::new(), image),
        ("truncated", real[..real.len() / 2].into(), invalid),
        ("future arch (.target sm_200)", future, invalid),
        ("with a NUL", "// PTX\0\n".into(), invalid),
    ])
}

/// Expected: load_ptx_str of "this is not PTX" -> CUDA_ERROR_INVALID_IMAGE (seen on an H200:
/// the driver takes it for a binary image); of "" -> CUDA_ERROR_INVALID_IMAGE (the same); of
/// the first half of the suite's PTX -> CUDA_ERROR_INVALID_PTX; of the
/// suite's PTX with `.target sm_200` -> CUDA_ERROR_INVALID_PTX; of text with a NUL ->
/// CUDA_ERROR_INVALID_PTX (refused before the driver); kernel "no_such_kernel" ->
/// `KernelNotFound`; global "NO_SUCH_GLOBAL" and the kernel name "misuse_set_word" as a global
/// -> `GlobalNotFound`; then a launch and download work.
fn bad_ptx(ctx: &Ctx) -> Result<String> {
    let gpu = &ctx.gpu;
    let mut bad = Vec::new();
    let mut seen = Vec::new();
    for (what, text, want) in bad_texts(ctx)? {
        let r = gpu.load_ptx_str(what, &text);
        match driver_code(&r) {
            Some(c) if c == want => seen.push(format!("{what}: {c:?}")),
            _ => bad.push(format!("{what}: expected {want:?}, got {}", shown(&r))),
        }
    }
    let module = gpu.load_ptx(ctx.ptx_dir.join(KERNELS_PTX))?;
    let k = module.kernel("no_such_kernel");
    if !matches!(k, Err(Error::KernelNotFound { .. })) {
        bad.push(format!(
            "kernel no_such_kernel: expected KernelNotFound, got {}",
            shown(&k)
        ));
    }
    for name in ["NO_SUCH_GLOBAL", "misuse_set_word"] {
        let g = module.read_global::<u32>(gpu, name);
        if !matches!(g, Err(Error::GlobalNotFound { .. })) {
            bad.push(format!(
                "global {name}: expected GlobalNotFound, got {}",
                shown(&g)
            ));
        }
    }
    still_works(ctx).map_err(|e| format!("after the bad PTX: {e}"))?;
    if !bad.is_empty() {
        return Err(bad.join("; ").into());
    }
    Ok(format!(
        "{}; missing kernel and globals not found; the GPU worked after",
        seen.join(", ")
    ))
}

/// A fresh folder of this process's own under the temporary directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Scratch> {
        let dir = std::env::temp_dir().join(format!("ptx-sync-misuse-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }

    /// Writes `bytes` to the file `name` (raw bytes: a name need not be UTF-8) in the folder.
    fn file(&self, name: &[u8], bytes: &[u8]) -> Result<PathBuf> {
        use std::os::unix::ffi::OsStrExt;
        let path = self.0.join(std::ffi::OsStr::from_bytes(name));
        std::fs::write(&path, bytes)?;
        Ok(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether `r` is `Error::PtxUnreadable` for `path` with an I/O error of `kind`.
fn unreadable<T>(r: &ptx_sync_host::Result<T>, path: &Path, kind: std::io::ErrorKind) -> bool {
    matches!(r, Err(Error::PtxUnreadable { path: p, source }) if p == path && source.kind() == kind)
}

/// Expected: `load_ptx` of files holding the texts of [`bad_texts`] gives the same driver
/// codes as `load_ptx_str` (garbage and empty: CUDA_ERROR_INVALID_IMAGE; truncated, `.target
/// sm_200`, a NUL byte: CUDA_ERROR_INVALID_PTX); of bytes that are not UTF-8 (0xff 0xfe) ->
/// `Error::PtxUnreadable` (InvalidData) naming the path; of a path that does not exist ->
/// `Error::PtxNotFound` naming it; of a directory -> `Error::PtxUnreadable` (IsADirectory); of
/// the suite's real PTX at a path that is not UTF-8 (`kernels-\xff.ptx`) -> `Ok`, and its
/// `misuse_fault_write` runs. On that module, kernels "" and "misuse_fault_write\0x" ->
/// `Error::KernelNotFound`; globals "" and "HOST_API_COUNTER\0" -> `Error::GlobalNotFound`.
/// `Device::open(1 << 32)` and `Device::open(count)` -> `Error::NoSuchGpu { ordinal, count }`
/// with the machine's GPU count. Then a launch and download work.
fn bad_ptx_files_names_and_ordinals(ctx: &Ctx) -> Result<String> {
    use std::io::ErrorKind::{InvalidData, IsADirectory};
    let gpu = &ctx.gpu;
    let dir = Scratch::new()?;
    let mut bad = Vec::new();
    let mut checked = 0;
    for (what, text, want) in bad_texts(ctx)? {
        let path = dir.file(
            format!("{}.ptx", what.replace(' ', "_")).as_bytes(),
            text.as_bytes(),
        )?;
        let r = gpu.load_ptx(&path);
        checked += 1;
        if driver_code(&r) != Some(want) {
            bad.push(format!("file {what}: expected {want:?}, got {}", shown(&r)));
        }
    }
    let binary = dir.file(b"binary.ptx", &[0xff, 0xfe, b'P', b'T', b'X'])?;
    let r = gpu.load_ptx(&binary);
    checked += 1;
    if !unreadable(&r, &binary, InvalidData) {
        bad.push(format!(
            "a file that is not UTF-8: expected PtxUnreadable (InvalidData), got {}",
            shown(&r)
        ));
    }
    let missing = dir.0.join("missing.ptx");
    let r = gpu.load_ptx(&missing);
    checked += 1;
    if !matches!(&r, Err(Error::PtxNotFound(p)) if *p == missing) {
        bad.push(format!(
            "a missing file: expected PtxNotFound, got {}",
            shown(&r)
        ));
    }
    let r = gpu.load_ptx(&dir.0);
    checked += 1;
    if !unreadable(&r, &dir.0, IsADirectory) {
        bad.push(format!(
            "a directory: expected PtxUnreadable (IsADirectory), got {}",
            shown(&r)
        ));
    }
    let real = std::fs::read(ctx.ptx_dir.join(KERNELS_PTX))?;
    let odd_path = dir.file(b"kernels-\xff.ptx", &real)?;
    let module = gpu
        .load_ptx(&odd_path)
        .map_err(|e| format!("the real PTX at a path that is not UTF-8: {e}"))?;
    checked += 1;
    let out = gpu.zeros::<u32>(1)?;
    let writer = module.kernel("misuse_fault_write")?;
    // SAFETY: misuse_fault_write(ptr, value) to a live one-word buffer.
    unsafe {
        gpu.launch_builder(&writer)
            .arg(&out)
            .arg(9u32)
            .launch(one_thread())
    }?;
    gpu.wait(TIMEOUT)?;
    if gpu.download(&out)? != [9] {
        bad.push("the kernel of the module at a non-UTF-8 path did not write its word".into());
    }
    for name in ["", "misuse_fault_write\0x"] {
        let k = module.kernel(name);
        checked += 1;
        if !matches!(&k, Err(Error::KernelNotFound { name: n, .. }) if n == name) {
            bad.push(format!(
                "kernel {name:?}: expected KernelNotFound, got {}",
                shown(&k)
            ));
        }
    }
    for name in ["", "HOST_API_COUNTER\0"] {
        let g = module.read_global::<u32>(gpu, name);
        checked += 1;
        if !matches!(&g, Err(Error::GlobalNotFound { name: n, .. }) if n == name) {
            bad.push(format!(
                "global {name:?}: expected GlobalNotFound, got {}",
                shown(&g)
            ));
        }
    }
    let count = Device::count()?;
    for ordinal in [1usize << 32, count] {
        let r = Device::open(ordinal);
        checked += 1;
        let named = |o: usize, c: usize| o == ordinal && c == count;
        if !matches!(r, Err(Error::NoSuchGpu { ordinal: o, count: c }) if named(o, c)) {
            bad.push(format!(
                "Device::open({ordinal}): expected NoSuchGpu {{ ordinal: {ordinal}, count: {count} }}, got {}",
                shown(&r)
            ));
        }
    }
    still_works(ctx).map_err(|e| format!("after the bad files: {e}"))?;
    if !bad.is_empty() {
        return Err(bad.join("; ").into());
    }
    Ok(format!(
        "{checked} files, names and ordinals gave their exact answer (bad PTX files as the same text, unreadable and missing files and a directory refused before the driver, a non-UTF-8 path loaded and ran; empty and NUL names not found; ordinals 2^32 and {count} NoSuchGpu); the GPU worked after"
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "misuse_bad_allocations" => allocations,
        "misuse_bad_ptx_and_names" => bad_ptx,
        "misuse_bad_ptx_files_names_and_ordinals" => bad_ptx_files_names_and_ordinals,
    ]
}
