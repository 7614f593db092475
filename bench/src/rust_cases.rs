//! The Rust side of every case (bench/kernels): the same shapes, work and checks as the C++
//! references in bench/cpp/reference.cu.

use crate::reference::Sample;
use ptx_sync_host::cudarc::driver::sys::CUevent_flags;
use ptx_sync_host::cudarc::driver::{
    CudaSlice, DeviceRepr, LaunchArgs, LaunchConfig, PushKernelArg, ValidAsZeroBits,
};
use ptx_sync_host::{Gpu, MappedBuffer, Module};
use std::sync::atomic::Ordering::{Acquire, Release};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

/// The Rust case names (the C++ library has these and more).
pub fn names() -> Vec<String> {
    let mut v = Vec::new();
    for op in ["fetch_add", "cas_loop", "exchange"] {
        for pl in ["contended", "distinct"] {
            for sc in ["cta", "gpu"] {
                for o in ["relaxed", "acq_rel"] {
                    for t in ["u32", "u64"] {
                        v.push(format!("atomic/{op}/{pl}/{sc}/{o}/{t}"));
                    }
                }
            }
        }
    }
    v.push("atomic/float_add/contended/gpu/relaxed/f32".into());
    v.push("atomic/float_add/distinct/gpu/relaxed/f32".into());
    v.push("mp/pingpong/blocks".into());
    v.push("mp/pingpong/host".into());
    for f in ["sc", "acq_rel"] {
        for s in ["cta", "gpu", "sys"] {
            v.push(format!("fence/{f}/{s}"));
        }
    }
    for kind in ["mutex", "semaphore4", "semaphore32"] {
        for shape in ["1x32", "132x32", "132x256"] {
            v.push(format!("{kind}/{shape}"));
        }
    }
    v.push("latch/132x128".into());
    for b in [
        "syncthreads",
        "cuda_barrier",
        "split_arrive_wait",
        "generic",
    ] {
        v.push(format!("block_barrier/{b}"));
    }
    for b in ["grid_sync", "cuda_barrier"] {
        for n in ["132", "264"] {
            v.push(format!("grid_barrier/{b}/{n}"));
        }
    }
    v
}

/// The shapes of reference.cu's `shape()`: (blocks, threads, iterations per thread).
fn lock_shape(shape: &str) -> Result<(u32, u32, i32), String> {
    Ok(match shape {
        "1x32" => (1, 32, 64),
        "132x32" => (132, 32, 16),
        "132x256" => (132, 256, 4),
        _ => return Err(format!("unknown shape {shape}")),
    })
}

/// `Semaphore<Gpu, MAX>`: holders count themselves in and out; never more than MAX.
fn semaphore(gpu: &Gpu, m: &Module, kind: &str, shape: &str) -> Sample {
    let (blocks, threads, iters) = lock_shape(shape)?;
    let max: u32 = if kind == "semaphore4" { 4 } else { 32 };
    let k = m
        .kernel(&format!("{kind}__holders"))
        .map_err(|e| e.to_string())?;
    let sem = gpu.upload(&[max]).map_err(|e| e.to_string())?;
    let stats: CudaSlice<u32> = gpu.zeros(96).map_err(|e| e.to_string())?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&sem).arg(&stats).arg(&iters);
    let ms = timed(gpu, b, cfg(blocks, threads))?;
    let h = gpu.download(&stats).map_err(|e| e.to_string())?;
    let units = gpu.download(&sem).map_err(|e| e.to_string())?[0];
    let total = blocks * threads * iters as u32;
    if h[64] != total || h[32] > max || h[0] != 0 || units != max {
        return Err(format!(
            "wrong result: passes {}/{total}, most holders {} (max {max}), left {}, units {units}",
            h[64], h[32], h[0]
        ));
    }
    Ok((ms, total as f64))
}

/// `Latch<Gpu>` fan-in: 500 rounds, a fresh latch of 132 per round, cooperative launch.
fn latch(gpu: &Gpu, m: &Module) -> Sample {
    let (blocks, threads, rounds) = (132u32, 128u32, 500i32);
    let k = m.kernel("latch__fan_in").map_err(|e| e.to_string())?;
    let latches = gpu
        .upload(&vec![blocks; rounds as usize])
        .map_err(|e| e.to_string())?;
    let arrived: CudaSlice<u32> = gpu.zeros(1).map_err(|e| e.to_string())?;
    let errors: CudaSlice<u32> = gpu.zeros(1).map_err(|e| e.to_string())?;
    let cfg = gpu
        .cooperative_config(&k, blocks, threads, 0)
        .map_err(|e| e.to_string())?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&latches).arg(&arrived).arg(&rounds).arg(&errors);
    let ms = timed_cooperative(gpu, b, cfg)?;
    let e = gpu.download(&errors).map_err(|e| e.to_string())?[0];
    if e != 0 {
        return Err(format!("wrong result: {e} early wake-ups"));
    }
    Ok((ms, rounds as f64))
}

/// Block barriers: 132 x 256 threads, 10000 phases, double-buffered neighbour exchange.
fn block_barrier(gpu: &Gpu, m: &Module, kname: &str) -> Sample {
    let (blocks, threads, iters) = (132u32, 256u32, 10_000i32);
    let k = m.kernel(kname).map_err(|e| e.to_string())?;
    let errors: CudaSlice<u32> = gpu.zeros(1).map_err(|e| e.to_string())?;
    let sink: CudaSlice<f32> = gpu.zeros(1).map_err(|e| e.to_string())?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&iters).arg(&errors);
    if kname.ends_with("split_arrive_wait") {
        b.arg(&sink);
    }
    let mut c = cfg(blocks, threads);
    c.shared_mem_bytes = 16 + 2 * threads * 4;
    let ms = timed(gpu, b, c)?;
    let e = gpu.download(&errors).map_err(|e| e.to_string())?[0];
    if e != 0 {
        return Err(format!("wrong result: {e} stale neighbour reads"));
    }
    Ok((ms, iters as f64))
}

/// Grid barriers: 2000 rounds, 128 threads a block, cooperative launch.
fn grid_barrier(gpu: &Gpu, m: &Module, kname: &str, blocks: u32) -> Sample {
    let rounds = 2000i32;
    let k = m.kernel(kname).map_err(|e| e.to_string())?;
    // GridBarrier: one zero word. Barrier<Gpu>: [expected, expected, phase 0].
    let init: &[u32] = if kname.contains("grid_sync") {
        &[0]
    } else {
        &[blocks, blocks, 0]
    };
    let bar = gpu.upload(init).map_err(|e| e.to_string())?;
    let slots = gpu
        .upload(&vec![-1i32; 2 * blocks as usize])
        .map_err(|e| e.to_string())?;
    let errors: CudaSlice<u32> = gpu.zeros(1).map_err(|e| e.to_string())?;
    let cfg = gpu
        .cooperative_config(&k, blocks, 128, 0)
        .map_err(|e| e.to_string())?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&bar).arg(&slots).arg(&rounds).arg(&errors);
    let ms = timed_cooperative(gpu, b, cfg)?;
    let e = gpu.download(&errors).map_err(|e| e.to_string())?[0];
    if e != 0 {
        return Err(format!("wrong result: {e} stale neighbour reads"));
    }
    Ok((ms, rounds as f64))
}

/// [`timed`] for a cooperative launch.
fn timed_cooperative(gpu: &Gpu, mut launch: LaunchArgs, cfg: LaunchConfig) -> Result<f64, String> {
    launch.record_kernel_launch(CUevent_flags::CU_EVENT_DEFAULT);
    let events = unsafe { launch.launch_cooperative(cfg) }.map_err(|e| format!("launch: {e}"))?;
    gpu.wait(LIMIT).map_err(|e| e.to_string())?;
    let (start, end) = events.ok_or("no events recorded")?;
    start
        .elapsed_ms(&end)
        .map(|ms| ms as f64)
        .map_err(|e| e.to_string())
}

/// `Mutex<u32, Gpu>` around `counter += 1`; the shapes of reference.cu's `shape()`.
fn mutex(gpu: &Gpu, m: &Module, shape: &str) -> Sample {
    let (blocks, threads, iters) = lock_shape(shape)?;
    let k = m.kernel("mutex__counter").map_err(|e| e.to_string())?;
    // Mutex<u32, Gpu>: lock-word line, a reserved line, then the counter (zero: unlocked, 0).
    let lock: CudaSlice<u32> = gpu.zeros(65).map_err(|e| e.to_string())?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&lock).arg(&iters);
    let ms = timed(gpu, b, cfg(blocks, threads))?;
    let h = gpu.download(&lock).map_err(|e| e.to_string())?;
    let total = blocks * threads * iters as u32;
    if h[64] != total || h[0] != 0 {
        return Err(format!(
            "wrong result: counter {} (expected {total}), lock word {}",
            h[64], h[0]
        ));
    }
    Ok((ms, total as f64))
}

/// Launches with events recorded around the kernel; returns milliseconds.
fn timed(gpu: &Gpu, mut launch: LaunchArgs, cfg: LaunchConfig) -> Result<f64, String> {
    launch.record_kernel_launch(CUevent_flags::CU_EVENT_DEFAULT);
    let events = unsafe { launch.launch(cfg) }.map_err(|e| format!("launch: {e}"))?;
    gpu.wait(LIMIT).map_err(|e| e.to_string())?;
    let (start, end) = events.ok_or("no events recorded")?;
    start
        .elapsed_ms(&end)
        .map(|ms| ms as f64)
        .map_err(|e| e.to_string())
}

fn cfg(blocks: u32, threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

trait Word: DeviceRepr + ValidAsZeroBits + Copy + PartialEq + std::fmt::Debug + Unpin {
    fn from_f64(x: f64) -> Self;
}
impl Word for u32 {
    fn from_f64(x: f64) -> Self {
        x as u32
    }
}
impl Word for u64 {
    fn from_f64(x: f64) -> Self {
        x as u64
    }
}
impl Word for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

fn atomic<T: Word>(
    gpu: &Gpu,
    m: &Module,
    kname: &str,
    op: &str,
    contended: bool,
    cta: bool,
) -> Sample {
    let small = op == "cas_loop" && contended;
    // f32 counts exactly only to 2^24: the contended float sum keeps 264 x 256 x 32 below it.
    let (blocks, threads, iters): (u32, u32, i32) = match (small, op == "float_add" && contended) {
        (true, _) => (132, 64, 4),
        (_, true) => (264, 256, 32),
        _ => (264, 256, 256),
    };
    let n = (blocks * threads) as usize;
    let words_len = if contended { blocks as usize * 32 } else { n };
    let k = m.kernel(kname).map_err(|e| e.to_string())?;
    let w: CudaSlice<T> = gpu.zeros(words_len).map_err(|e| e.to_string())?;
    let out: CudaSlice<T> = gpu.zeros(n).map_err(|e| e.to_string())?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&w).arg(&out).arg(&iters);
    let ms = timed(gpu, b, cfg(blocks, threads))?;
    let h = gpu.download(&w).map_err(|e| e.to_string())?;
    if op != "exchange" {
        let bad = if !contended {
            h.iter().position(|&v| v != T::from_f64(iters as f64))
        } else if cta {
            (0..blocks as usize)
                .map(|b| b * 32)
                .find(|&i| h[i] != T::from_f64(threads as f64 * iters as f64))
        } else {
            (h[0] != T::from_f64(n as f64 * iters as f64)).then_some(0)
        };
        if let Some(i) = bad {
            return Err(format!("wrong result: word {i} = {:?}", h[i]));
        }
    }
    Ok((ms, n as f64 * iters as f64))
}

fn pingpong_blocks(gpu: &Gpu, m: &Module) -> Sample {
    let rounds = 20_000i32;
    let k = m
        .kernel("mp__pingpong__blocks")
        .map_err(|e| e.to_string())?;
    let f: CudaSlice<u32> = gpu.zeros(64).map_err(|e| e.to_string())?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&f).arg(&rounds);
    let ms = timed(gpu, b, cfg(2, 1))?;
    let h = gpu.download(&f).map_err(|e| e.to_string())?;
    if h[0] != rounds as u32 || h[32] != rounds as u32 {
        return Err(format!("wrong result: flags {} {}", h[0], h[32]));
    }
    Ok((ms, rounds as f64))
}

fn pingpong_host(gpu: &Gpu, m: &Module) -> Sample {
    let rounds = 2_000i32;
    let k = m.kernel("mp__pingpong__host").map_err(|e| e.to_string())?;
    let buf = MappedBuffer::<u32>::new(gpu, 64).map_err(|e| e.to_string())?;
    let ptr = buf.device_ptr();
    let words = buf.atomics_u32();
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&ptr).arg(&rounds);
    b.record_kernel_launch(CUevent_flags::CU_EVENT_DEFAULT);
    let events = unsafe { b.launch(cfg(1, 1)) }.map_err(|e| format!("launch: {e}"))?;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    for r in 1..=rounds as u32 {
        // The deadline is read only every 4096 polls: a clock read per poll would lengthen
        // the round trip being measured.
        let mut polls = 0u32;
        while words[0].load(Acquire) != r {
            polls = polls.wrapping_add(1);
            if polls.is_multiple_of(4096) && std::time::Instant::now() > deadline {
                return Err(format!("host: round {r} never arrived"));
            }
        }
        words[32].store(r, Release);
    }
    gpu.wait(LIMIT).map_err(|e| e.to_string())?;
    let (start, end) = events.ok_or("no events recorded")?;
    let ms = start.elapsed_ms(&end).map_err(|e| e.to_string())? as f64;
    Ok((ms, rounds as f64))
}

fn fence(gpu: &Gpu, m: &Module, kname: &str) -> Sample {
    let (blocks, threads, iters) = (132u32, 128u32, 1024i32);
    let k = m.kernel(kname).map_err(|e| e.to_string())?;
    let x: CudaSlice<i32> = gpu
        .zeros((blocks * threads) as usize)
        .map_err(|e| e.to_string())?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&x).arg(&iters);
    let ms = timed(gpu, b, cfg(blocks, threads))?;
    let h = gpu.download(&x).map_err(|e| e.to_string())?;
    if let Some(i) = h.iter().position(|&v| v != iters - 1) {
        return Err(format!("wrong result: x[{i}] = {}", h[i]));
    }
    Ok((ms, (blocks * threads) as f64 * iters as f64))
}

/// One timed, checked launch of the Rust side of `case`.
pub fn run(gpu: &Gpu, m: &Module, case: &str) -> Sample {
    let parts: Vec<&str> = case.split('/').collect();
    let kname = parts.join("__");
    match parts.as_slice() {
        ["atomic", op, pl, sc, _, ty] => {
            let (contended, cta) = (*pl == "contended", *sc == "cta");
            match *ty {
                "u32" => atomic::<u32>(gpu, m, &kname, op, contended, cta),
                "u64" => atomic::<u64>(gpu, m, &kname, op, contended, cta),
                _ => atomic::<f32>(gpu, m, &kname, op, contended, cta),
            }
        }
        ["mp", "pingpong", "blocks"] => pingpong_blocks(gpu, m),
        ["mp", "pingpong", "host"] => pingpong_host(gpu, m),
        ["fence", ..] => fence(gpu, m, &kname),
        ["mutex", shape] => mutex(gpu, m, shape),
        [kind @ ("semaphore4" | "semaphore32"), shape] => semaphore(gpu, m, kind, shape),
        ["latch", "132x128"] => latch(gpu, m),
        ["block_barrier", _] => block_barrier(gpu, m, &kname),
        ["grid_barrier", _, n] => {
            let blocks = n
                .parse()
                .map_err(|_| format!("bad block count in {case}"))?;
            let kname = kname.rsplit_once("__").map(|(k, _)| k).unwrap_or(&kname);
            grid_barrier(gpu, m, kname, blocks)
        }
        _ => Err(format!("no Rust side for {case}")),
    }
}
