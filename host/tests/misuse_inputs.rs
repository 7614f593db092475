//! Bad input through the public host API: ordinals, sizes, kernel and global names, PTX paths.
//! Each gives its exact typed error, never a panic, an overflow or a silent truncation. Inputs
//! are the edge values and a few thousand from a seeded xorshift, the same on every run.
//!
//! Without a driver (CI) every way in is `NoDriver`; the checks that need no GPU (sizes, names,
//! PTX text and paths) are unit tests next to the code (`host/src/error.rs`, `ptx.rs`,
//! `loader.rs`). With a GPU, this file drives the whole path, and `clean_launch` is the program
//! that compute-sanitizer must find clean (`compute-sanitizer --tool memcheck <this test binary>
//! clean_launch`: 0 errors).

use ptx_sync_host::cudarc::driver::{DeviceRepr, PushKernelArg};
use ptx_sync_host::{
    driver_available, launch_config, Device, Error, ManagedBuffer, MappedBuffer, PeerBuffer,
    PortableBuffer,
};
use std::path::Path;
use std::time::Duration;

/// A kernel with a pointer, a `u32` and a 16-byte struct by value, and a global: hand-written,
/// so the test needs no kernel build. `out[i] = i + extra.add` for `i < n`.
const PTX: &str = "
.version 7.0
.target sm_70
.address_size 64

.visible .global .align 4 .b8 MISUSE_COUNTER[4];

.visible .entry misuse_fill(
\t.param .u64 .ptr .align 1 misuse_fill_param_0,
\t.param .u32 misuse_fill_param_1,
\t.param .align 8 .b8 misuse_fill_param_2[16]
)
{
\t.reg .pred %p<2>;
\t.reg .b32 %r<7>;
\t.reg .b64 %rd<5>;
\tld.param.u64 %rd1, [misuse_fill_param_0];
\tld.param.u32 %r1, [misuse_fill_param_1];
\tld.param.u32 %r5, [misuse_fill_param_2+8];
\tmov.u32 %r2, %ctaid.x;
\tmov.u32 %r3, %ntid.x;
\tmov.u32 %r4, %tid.x;
\tmad.lo.s32 %r2, %r2, %r3, %r4;
\tsetp.ge.u32 %p1, %r2, %r1;
\t@%p1 bra DONE;
\tcvta.to.global.u64 %rd2, %rd1;
\tmul.wide.u32 %rd3, %r2, 4;
\tadd.s64 %rd4, %rd2, %rd3;
\tadd.u32 %r6, %r2, %r5;
\tst.global.u32 [%rd4], %r6;
DONE:
\tret;
}
";
const MODULE: &str = "misuse.ptx (embedded)";

/// `misuse_fill`'s third parameter: 16 bytes, 8-aligned.
#[repr(C)]
#[derive(Clone, Copy)]
struct Extra {
    tag: u64,
    add: u32,
    _pad: u32,
}
// SAFETY: plain `#[repr(C)]` integers, as the kernel reads them.
unsafe impl DeviceRepr for Extra {}

#[path = "../src/test_rng.rs"]
mod test_rng;
use test_rng::Rng;

/// Ordinals no machine here has: the edges around `i32` and `u32` (cudarc casts to `i32`, so
/// `1 << 32` was GPU 0), `usize::MAX`, and 2000 random ones from 64 up.
fn ordinals() -> Vec<usize> {
    let mut v = vec![
        64,
        i32::MAX as usize,
        1 << 31,
        u32::MAX as usize,
        1 << 32,
        (1 << 32) + 1,
        isize::MAX as usize,
        usize::MAX - 1,
        usize::MAX,
    ];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    v.extend((0..2000).map(|_| 64 + (rng.next() as usize) % (usize::MAX - 64)));
    v
}

/// Names no kernel or global of [`PTX`] has: empty, NUL bytes, non-ASCII, a megabyte long, and
/// 500 random ones over an alphabet with NUL, `$`, `%`, `.` and non-ASCII letters.
fn names() -> Vec<String> {
    let mut v: Vec<String> = [
        "",
        "\0",
        "k\0x",
        "misuse_fill\0",
        "\0misuse_fill",
        "misuse_fillé",
        "ядро",
        "🦀",
        "misuse fill",
        "misuse_fill_param_0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push("a".repeat(1 << 20));
    let alphabet: Vec<char> = "ab_$%.\0é🦀Z09".chars().collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..500 {
        let len = (rng.next() % 40) as usize;
        let name: String = (0..len)
            .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize])
            .collect();
        if name != "misuse_fill" && name != "MISUSE_COUNTER" {
            v.push(name);
        }
    }
    v
}

fn no_driver<T: std::fmt::Debug>(got: ptx_sync_host::Result<T>, why: &str, what: &str) {
    match got {
        Err(Error::NoDriver(reason)) => assert_eq!(reason, why, "{what}"),
        other => panic!("{what}: expected NoDriver, got {other:?}"),
    }
}

#[test]
fn ordinals_past_the_machine() {
    let ordinals = ordinals();
    let mut checks = 0;
    match driver_available() {
        Err(Error::NoDriver(why)) => {
            // Ordinal 0 too: no driver is no GPU.
            for &o in std::iter::once(&0).chain(&ordinals) {
                no_driver(Device::open(o), &why, &format!("open({o})"));
                no_driver(Device::open_list(&[o]), &why, &format!("open_list(&[{o}])"));
                checks += 2;
            }
            for needed in [0, 1, usize::MAX] {
                no_driver(Device::open_at_least(needed), &why, "open_at_least");
                checks += 1;
            }
            no_driver(Device::count(), &why, "count");
            checks += 1;
            assert_eq!(checks, 2 * (ordinals.len() + 1) + 3 + 1);
        }
        Ok(()) => {
            let count = Device::count().unwrap();
            assert!(count < 64, "a machine with {count} GPUs");
            for &o in &ordinals {
                for got in [
                    Device::open(o).map(|_| ()),
                    Device::open_list(&[0, o]).map(|_| ()),
                ] {
                    match got {
                        Err(Error::NoSuchGpu { ordinal, count: c }) => {
                            assert_eq!((ordinal, c), (o, count))
                        }
                        other => panic!("ordinal {o}: {other:?}"),
                    }
                    checks += 1;
                }
            }
            for needed in [count + 1, usize::MAX] {
                match Device::open_at_least(needed) {
                    Err(Error::TooFewGpus {
                        needed: n,
                        count: c,
                    }) => {
                        assert_eq!((n, c), (needed, count))
                    }
                    other => panic!("open_at_least({needed}): {other:?}"),
                }
                checks += 1;
            }
            let e = Device::open(1 << 32).map(|_| ()).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!(
                    "there is no GPU {}: this machine has ",
                    1u64 << 32
                )),
                "{e}"
            );
            checks += 1;
            assert_eq!(checks, 2 * ordinals.len() + 2 + 1);
        }
        Err(e) => panic!("driver_available: expected NoDriver, got {e}"),
    }
}

/// `len` elements of `elem_bytes` each: does it fit in `isize::MAX` bytes?
fn fits(len: usize, elem_bytes: usize) -> bool {
    len.checked_mul(elem_bytes)
        .is_some_and(|b| b <= isize::MAX as usize)
}

fn too_large<T: std::fmt::Debug>(
    got: ptx_sync_host::Result<T>,
    what: &str,
    len: usize,
    elem: usize,
) {
    match got {
        Err(Error::TooLarge {
            what: w,
            len: l,
            elem_bytes,
        }) => {
            assert_eq!((w, l, elem_bytes), (what, len, elem), "{what}")
        }
        other => panic!("{what} of {len} x {elem} bytes: expected TooLarge, got {other:?}"),
    }
}

#[test]
fn sizes_past_the_address_space() {
    let Ok(()) = driver_available() else {
        return; // the allocators need a GPU; byte_len's own test runs everywhere
    };
    let gpu = Device::open(0).unwrap();
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    let mut checks = 0;
    for elem in [1usize, 2, 4, 8] {
        let mut lens = vec![
            usize::MAX,
            (usize::MAX / elem).saturating_add(1),
            isize::MAX as usize / elem + 1,
        ];
        // Random lengths too large for this element size.
        while lens.len() < 200 {
            let len = rng.next() as usize;
            if !fits(len, elem) {
                lens.push(len);
            }
        }
        for len in lens {
            match elem {
                1 => too_large(gpu.zeros::<u8>(len), "device buffer", len, 1),
                2 => too_large(gpu.zeros::<u16>(len), "device buffer", len, 2),
                4 => {
                    too_large(gpu.zeros::<f32>(len), "device buffer", len, 4);
                    too_large(MappedBuffer::<u32>::new(&gpu, len), "mapped buffer", len, 4);
                    too_large(gpu.managed::<f32>(len), "managed buffer", len, 4);
                    checks += 2;
                }
                _ => {
                    too_large(gpu.zeros::<u64>(len), "device buffer", len, 8);
                    too_large(PeerBuffer::<u64>::new(&gpu, len), "peer buffer", len, 8);
                    too_large(
                        PortableBuffer::<f64>::new([&gpu], len),
                        "mapped buffer",
                        len,
                        8,
                    );
                    too_large(
                        ManagedBuffer::<u64>::new(&gpu, len),
                        "managed buffer",
                        len,
                        8,
                    );
                    checks += 3;
                }
            }
            checks += 1;
        }
    }
    // The largest length that fits is the driver's to refuse (out of memory), not TooLarge.
    match gpu.zeros::<u64>(isize::MAX as usize / 8) {
        Err(Error::Driver { .. }) => {}
        other => panic!("8 EiB of device memory: {other:?}"),
    }
    checks += 1;
    // What the message says for the example.
    let e = gpu
        .zeros::<u64>(usize::MAX / 8 + 2)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "device buffer of {} elements of 8 bytes needs more bytes than a usize can count, \
             more than the {} (isize::MAX) one allocation can span: ask for fewer elements (is \
             the length a subtraction that wrapped below zero, or a byte count given as an \
             element count?)",
            usize::MAX / 8 + 2,
            isize::MAX
        )
    );
    checks += 1;
    // 200 lengths for each element size: 1 allocator at 1 and 2 bytes, 3 at 4, 4 at 8.
    assert_eq!(checks, 200 * (1 + 1 + 3 + 4) + 2);
}

/// Managed memory past its cap ([`ManagedBuffer::MAX_BYTES`], 64 MiB) and of zero length:
/// refused before the driver, with the cap named. A size whose byte count overflows is
/// `TooLarge` (above). The checks themselves are unit tests (host/src/managed.rs); this drives
/// them through `Device::managed` and `ManagedBuffer::new` on a GPU.
#[test]
fn managed_sizes_past_the_cap() {
    let Ok(()) = driver_available() else {
        return;
    };
    let gpu = Device::open(0).unwrap();
    let cap = ManagedBuffer::<u32>::MAX_BYTES;
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut checks = 0;
    for elem in [4usize, 8] {
        let edge = cap / elem;
        let mut lens = vec![edge + 1, edge + 2, 2 * edge, isize::MAX as usize / elem];
        while lens.len() < 100 {
            let len = edge + 1 + (rng.next() as usize) % (isize::MAX as usize / elem - edge);
            lens.push(len);
        }
        for len in lens {
            let got = if elem == 4 {
                gpu.managed::<u32>(len).map(|_| ())
            } else {
                ManagedBuffer::<i64>::new(&gpu, len).map(|_| ())
            };
            match got {
                Err(Error::ManagedTooLarge {
                    len: l,
                    elem_bytes,
                    limit,
                }) => assert_eq!((l, elem_bytes, limit), (len, elem, cap)),
                other => panic!("{len} x {elem}: expected ManagedTooLarge, got {other:?}"),
            }
            checks += 1;
        }
    }
    assert!(matches!(
        gpu.managed::<u32>(0),
        Err(Error::Empty("managed buffer length"))
    ));
    checks += 1;
    assert_eq!(checks, 2 * 100 + 1);
}

#[test]
fn names_no_kernel_or_global_has() {
    let Ok(()) = driver_available() else {
        return; // a Module needs a GPU; the name checks' own tests run everywhere
    };
    let gpu = Device::open(0).unwrap();
    let module = gpu.load_ptx_str(MODULE, PTX).unwrap();
    let mut names = names();
    let mut checks = 0;
    // A global's name is no kernel's, and a kernel's no global's.
    let mut kernel_names = names.clone();
    kernel_names.push("MISUSE_COUNTER".into());
    for name in &kernel_names {
        match module.kernel(name) {
            Err(Error::KernelNotFound { module: m, name: n }) => {
                assert_eq!((m.as_str(), n.as_str()), (MODULE, name.as_str()))
            }
            other => panic!("kernel({name:?}): {other:?}"),
        }
        checks += 1;
    }
    names.push("misuse_fill".into());
    for name in &names {
        let results = [
            module.global_ptr(name).map(|_| ()),
            module.global_size(name).map(|_| ()),
            module.read_global::<u32>(&gpu, name).map(|_| ()),
            module.write_global(&gpu, name, &0u32),
        ];
        for got in results {
            match got {
                Err(Error::GlobalNotFound { module: m, name: n }) => {
                    assert_eq!((m.as_str(), n.as_str()), (MODULE, name.as_str()))
                }
                other => panic!("global {name:?}: {other:?}"),
            }
            checks += 1;
        }
    }
    // The messages say why for the names no symbol can have.
    let msg = module.kernel("k\0x").unwrap_err().to_string();
    assert_eq!(
        msg,
        format!("no kernel `k\\0x` in {MODULE} (a name cannot contain a NUL byte)")
    );
    let msg = module.global_ptr("").unwrap_err().to_string();
    assert_eq!(
        msg,
        format!("the global name is empty: give the name of a global in {MODULE}")
    );
    // And the real ones are found.
    assert_eq!(module.global_size("MISUSE_COUNTER").unwrap(), 4);
    assert_eq!(
        module.kernel("misuse_fill").unwrap().param_sizes(),
        Some(&[8, 4, 16][..])
    );
    checks += 4;
    assert_eq!(checks, kernel_names.len() + 4 * names.len() + 4);
}

#[test]
fn ptx_paths() {
    let Ok(()) = driver_available() else {
        return; // loading needs a GPU; read_ptx's own test runs everywhere
    };
    let gpu = Device::open(0).unwrap();
    let dir = std::env::temp_dir().join(format!("ptx-sync-misuse-paths-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut checks = 0;
    // A path that is not UTF-8 (cudarc's Ptx::from_file panicked on it): loads.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let odd = dir.join(std::ffi::OsStr::from_bytes(b"misuse\xff.ptx"));
        std::fs::write(&odd, PTX).unwrap();
        let module = gpu.load_ptx(&odd).unwrap();
        assert_eq!(module.name(), odd.display().to_string());
        assert!(module.kernel("misuse_fill").is_ok());
        checks += 1;
        let gone = dir.join(std::ffi::OsStr::from_bytes(b"gone\xfe.ptx"));
        assert!(matches!(gpu.load_ptx(&gone), Err(Error::PtxNotFound(p)) if p == gone));
        checks += 1;
    }
    let missing = dir.join("missing.ptx");
    assert!(matches!(gpu.load_ptx(&missing), Err(Error::PtxNotFound(p)) if p == missing));
    let latin1 = dir.join("latin1.ptx");
    std::fs::write(&latin1, b"// caf\xe9\n.version 7.0\n").unwrap();
    for (path, kind) in [
        (dir.as_path(), std::io::ErrorKind::IsADirectory),
        (latin1.as_path(), std::io::ErrorKind::InvalidData),
    ] {
        match gpu.load_ptx(path) {
            Err(Error::PtxUnreadable { path: p, source }) => {
                assert_eq!((p.as_path(), source.kind()), (path, kind))
            }
            other => panic!("{}: {other:?}", path.display()),
        }
        checks += 1;
    }
    let empty = Path::new("");
    assert!(matches!(gpu.load_ptx(empty), Err(Error::PtxNotFound(p)) if p == empty));
    checks += 2;
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(checks, if cfg!(unix) { 6 } else { 4 });
}

/// A program that uses the API as intended: compute-sanitizer must report no error in it (the
/// argument check reads the PTX; it makes no failing driver call). With
/// `PTX_SYNC_PLANT_API_ERROR=1` it makes one on purpose (`cuFuncGetParamInfo` past the last
/// parameter, what the argument check used to do): the control that shows compute-sanitizer
/// would count such a call.
#[test]
fn clean_launch() {
    let Ok(()) = driver_available() else {
        return;
    };
    let gpu = Device::open(0).unwrap();
    let module = gpu.load_ptx_str(MODULE, PTX).unwrap();
    let kernel = module.kernel("misuse_fill").unwrap();
    assert_eq!(kernel.param_sizes(), Some(&[8, 4, 16][..]));
    let n = 1000u32;
    let out = gpu.zeros::<u32>(n as usize).unwrap();
    let extra = Extra {
        tag: 7,
        add: 5,
        _pad: 0,
    };
    // Refused before the launch, without a driver call: an i32 literal for the u32 is fine
    // (4 bytes), a missing argument is not.
    let mut short = gpu.launch_builder(&kernel);
    short.arg(&out).arg(n);
    match unsafe { short.launch(launch_config(4, 256, 0)) } {
        Err(Error::BadArguments { why, .. }) => assert_eq!(
            why,
            "2 given (8, 4 bytes), but the kernel takes 3 (8, 4, 16 bytes)"
        ),
        other => panic!("{other:?}"),
    }
    let mut launch = gpu.launch_builder(&kernel);
    launch.arg(&out).arg(n).arg_ref(&extra);
    unsafe { launch.launch(launch_config(4, 256, 0)) }.unwrap();
    gpu.wait(Duration::from_secs(10)).unwrap();
    let got = gpu.download(&out).unwrap();
    assert!(
        got.iter().enumerate().all(|(i, &v)| v == i as u32 + 5),
        "{:?}",
        &got[..8]
    );
    module.write_global(&gpu, "MISUSE_COUNTER", &3u32).unwrap();
    assert_eq!(
        module.read_global::<u32>(&gpu, "MISUSE_COUNTER").unwrap(),
        3
    );
    if std::env::var_os("PTX_SYNC_PLANT_API_ERROR").is_some() {
        use ptx_sync_host::cudarc::driver::sys;
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: a live function handle and two out-parameters; index 3 is past the last.
        let r = unsafe {
            sys::cuFuncGetParamInfo(kernel.function().cu_function(), 3, &mut offset, &mut size)
        };
        assert_eq!(r, sys::CUresult::CUDA_ERROR_INVALID_VALUE);
        println!("planted: cuFuncGetParamInfo(index 3) = {r:?}");
    }
}

/// The PTX parser against the driver, on real rustc output: for every kernel of the PTX files in
/// `PTX_SYNC_PARAM_CROSSCHECK` (colon-separated), [`Kernel::param_sizes`] equals what
/// `cuFuncGetParamInfo` reports (asked up to the failing index past the last parameter, which
/// is why this is not part of a normal run). Needs a GPU and a CUDA 12.4+ driver:
/// `PTX_SYNC_PARAM_CROSSCHECK=target/ptx/sm_90/nvptx64-nvidia-cuda/release/ptx_sync_test_kernels.ptx
/// cargo test -p ptx-sync-host --test misuse_inputs -- --ignored`.
///
/// [`Kernel::param_sizes`]: ptx_sync_host::Kernel::param_sizes
#[test]
#[ignore = "needs a GPU and PTX files named in PTX_SYNC_PARAM_CROSSCHECK"]
fn param_sizes_match_the_driver() {
    use ptx_sync_host::cudarc::driver::sys;
    let files = std::env::var("PTX_SYNC_PARAM_CROSSCHECK").expect("PTX_SYNC_PARAM_CROSSCHECK");
    let gpu = Device::open(0).unwrap();
    let mut kernels = 0;
    for file in files.split(':') {
        let text = std::fs::read_to_string(file).unwrap();
        let module = gpu.load_ptx(Path::new(file)).unwrap();
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix(".visible .entry ") else {
                continue;
            };
            let name = rest.split('(').next().unwrap().trim();
            let kernel = module.kernel(name).unwrap();
            let mut driver = Vec::new();
            for index in 0.. {
                let (mut offset, mut size) = (0usize, 0usize);
                // SAFETY: a live function handle and two out-parameters.
                let r = unsafe {
                    sys::cuFuncGetParamInfo(
                        kernel.function().cu_function(),
                        index,
                        &mut offset,
                        &mut size,
                    )
                };
                if r != sys::CUresult::CUDA_SUCCESS {
                    assert_eq!(r, sys::CUresult::CUDA_ERROR_INVALID_VALUE, "{name}");
                    break;
                }
                driver.push(size);
            }
            assert_eq!(kernel.param_sizes(), Some(&driver[..]), "{file}: {name}");
            kernels += 1;
        }
    }
    println!("{kernels} kernels: the PTX declarations and the driver agree");
    assert!(kernels > 0);
}
