//! Out-of-bounds writes to another GPU's memory: the host's are refused before any copy, a
//! kernel's far past the end faults on the GPU that ran it, and the GPU that owns the memory is
//! either unharmed or reports the same fault as a typed error (over NVLink the driver poisons
//! the peer's context too), never a hang. Needs two GPUs (a skip with fewer).

use crate::{Ctx, GpuTest, KERNELS_PTX};
use ptx_sync_host::cudarc::driver::sys::CUresult;
use ptx_sync_host::cudarc::driver::{DriverError, PushKernelArg};
use ptx_sync_host::{Device, Error, PeerBuffer};
use ptx_sync_testkit::{one_thread, skip, Result};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
/// Words in the peer buffer.
const LEN: usize = 1024;
/// How far past the buffer's start the kernel's bad write lands: 128 TiB, above the 47-bit
/// addresses a Linux process maps (so above every allocation of this process, on any GPU).
const FAR: u64 = 1 << 47;

/// "Ok", or the error with its variant.
fn shown<T>(r: &ptx_sync_host::Result<T>) -> String {
    match r {
        Ok(_) => "Ok".into(),
        Err(e) => format!("{e:?}"),
    }
}

fn is_code<T>(r: &ptx_sync_host::Result<T>, code: CUresult) -> bool {
    matches!(r, Err(Error::Driver { source: DriverError(c), .. }) if *c == code)
}

/// The buffer's words must be 0 except 6 at `LEN - 2` and 5 at `LEN - 1`.
fn check_words(buf: &PeerBuffer<u32>, when: &str) -> Result<()> {
    let words = buf.read().map_err(|e| format!("{when}: read: {e}"))?;
    let wrong: Vec<String> = words
        .iter()
        .enumerate()
        .filter(|&(i, &w)| {
            w != match i {
                i if i == LEN - 2 => 6,
                i if i == LEN - 1 => 5,
                _ => 0,
            }
        })
        .take(4)
        .map(|(i, w)| format!("[{i}] = {w}"))
        .collect();
    if !wrong.is_empty() {
        return Err(format!("{when}: {}", wrong.join(", ")).into());
    }
    Ok(())
}

/// Expected, with two GPUs (a skip with fewer, or where GPU 0 cannot reach GPU 1's memory): a
/// `PeerBuffer<u32>` of 1024 words on GPU 1. From the host, `write(1020, 8 words)`,
/// `write(1024, 1 word)` and `write(usize::MAX, 1 word)` -> `Error::Driver` with
/// CUDA_ERROR_INVALID_VALUE, nothing copied; `write(1023, [5])` -> `Ok`. A kernel on GPU 0
/// writes 6 to word 1022 through `device_ptr_for(GPU 0)`: `wait` is `Ok` and `read` shows 6
/// and 5 in the last two words, 0 elsewhere. A kernel on GPU 0 writing 128 TiB past the
/// buffer's start -> GPU 0's `wait` answers CUDA_ERROR_ILLEGAL_ADDRESS. GPU 1 is unharmed:
/// `read` gives the same words, and a launch and download on GPU 1 work. Dropping the buffer
/// and GPU 1's handles returns within 1 s.
fn peer_out_of_bounds(ctx: &Ctx) -> Result<String> {
    let gpus = match Device::open_at_least(2) {
        Ok(g) => g,
        Err(err @ Error::TooFewGpus { .. }) => {
            return skip(format!(
                "{err}; out-of-bounds peer writes need two GPUs (run it on a machine with two GPUs)"
            ))
        }
        Err(e) => return Err(e.into()),
    };
    let (g0, g1) = (&ctx.gpu, &gpus[1]);
    let info = g0.peer_info(g1)?;
    if !info.can_access {
        return skip(format!(
            "{info}: kernels on GPU 0 cannot reach GPU 1's memory here"
        ));
    }
    let buf = PeerBuffer::<u32>::new(g1, LEN)?;
    let mut bad = Vec::new();
    let host_writes: [(&str, usize, &[u32]); 3] = [
        ("write(1020, 8 words)", LEN - 4, &[1; 8]),
        ("write(1024, 1 word)", LEN, &[1]),
        ("write(usize::MAX, 1 word)", usize::MAX, &[1]),
    ];
    for (what, offset, data) in host_writes {
        let r = buf.write(offset, data);
        if !is_code(&r, CUresult::CUDA_ERROR_INVALID_VALUE) {
            bad.push(format!(
                "{what}: expected CUDA_ERROR_INVALID_VALUE, got {}",
                shown(&r)
            ));
        }
    }
    buf.write(LEN - 1, &[5])
        .map_err(|e| format!("write(1023, [5]): {e}"))?;
    let ptr = buf.device_ptr_for(g0)?;
    let writer = ctx.kernel("misuse_fault_write")?;
    let last_but_one = ptr + 4 * (LEN as u64 - 2);
    // SAFETY: misuse_fault_write(ptr, value) to word 1022 of the peer buffer, which outlives it.
    unsafe {
        g0.launch_builder(&writer)
            .arg(last_but_one)
            .arg(6u32)
            .launch(one_thread())
    }?;
    g0.wait(TIMEOUT)
        .map_err(|e| format!("GPU 0 writing word 1022 of GPU 1's buffer: {e}"))?;
    check_words(&buf, "after the host's and GPU 0's writes")?;
    let far = ptr.wrapping_add(FAR);
    // SAFETY: the kernel takes (ptr, value); the address past the buffer is the point.
    unsafe {
        g0.launch_builder(&writer)
            .arg(far)
            .arg(7u32)
            .launch(one_thread())
    }?;
    let r = g0.wait(TIMEOUT);
    if !is_code(&r, CUresult::CUDA_ERROR_ILLEGAL_ADDRESS) {
        return Err(format!(
            "GPU 0 writing 128 TiB past GPU 1's buffer: expected CUDA_ERROR_ILLEGAL_ADDRESS, got {}",
            shown(&r)
        )
        .into());
    }
    // Over NVLink the driver reports GPU 0's fault in GPU 1's context too (seen on two H100s:
    // the read after it failed with CUDA_ERROR_ILLEGAL_ADDRESS). Then the promise is the
    // misuse one: a typed error from GPU 1's calls, no hang, drops that return.
    let after = buf.read();
    if is_code(&after, CUresult::CUDA_ERROR_ILLEGAL_ADDRESS) {
        let mut dropped = Duration::ZERO;
        dropped += super::misuse_stuck::timed_drop("the peer buffer", buf)?;
        dropped += super::misuse_stuck::timed_drop("the GPU handles", gpus)?;
        return Ok(format!(
            "{info}: 3 out-of-bounds host writes refused with CUDA_ERROR_INVALID_VALUE; GPU 0's write 128 TiB past the buffer: CUDA_ERROR_ILLEGAL_ADDRESS on GPU 0, and GPU 1's next call (reading its buffer) reported the same fault as a typed error (the driver poisons the peer's context too); drops took {:.4} s",
            dropped.as_secs_f64()
        ));
    }
    check_words(&buf, "GPU 1's buffer after GPU 0's fault")?;
    let module = g1.load_ptx(ctx.ptx_dir.join(KERNELS_PTX))?;
    let writer1 = module.kernel("misuse_fault_write")?;
    let out = g1.zeros::<u32>(1)?;
    // SAFETY: misuse_fault_write(ptr, value) to a live word of GPU 1.
    unsafe {
        g1.launch_builder(&writer1)
            .arg(&out)
            .arg(11u32)
            .launch(one_thread())
    }
    .map_err(|e| format!("a launch on GPU 1 after GPU 0's fault: {e}"))?;
    g1.wait(TIMEOUT)
        .map_err(|e| format!("GPU 1's wait after GPU 0's fault: {e}"))?;
    let got = g1.download(&out)?;
    if got != [11] {
        bad.push(format!(
            "GPU 1 downloaded {got:?} after GPU 0's fault, expected [11]"
        ));
    }
    if !bad.is_empty() {
        return Err(bad.join("; ").into());
    }
    let mut dropped = Duration::ZERO;
    dropped += super::misuse_stuck::timed_drop("the peer buffer", buf)?;
    dropped +=
        super::misuse_stuck::timed_drop("GPU 1's module and buffer", (writer1, module, out))?;
    dropped += super::misuse_stuck::timed_drop("the GPU handles", gpus)?;
    Ok(format!(
        "{info}: 3 out-of-bounds host writes refused with CUDA_ERROR_INVALID_VALUE; GPU 0's write 128 TiB past the buffer: CUDA_ERROR_ILLEGAL_ADDRESS on GPU 0; GPU 1's buffer intact and GPU 1 worked after; drops took {:.4} s",
        dropped.as_secs_f64()
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "misuse_peer_out_of_bounds" => peer_out_of_bounds,
    ]
}
