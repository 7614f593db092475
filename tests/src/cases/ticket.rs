//! Ticket lock under full contention (all SMs x 256 threads): holders enter in ticket order
//! (each writes its ticket into a log at the position it entered), every critical section is
//! counted, never two holders at once.

use crate::{Ctx, GpuTest};
use ptx_sync_host::cudarc::driver::PushKernelArg;
use ptx_sync_testkit::{launch_config, Result};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(60);
/// The kernel's lock (tests/kernels/src/ticket.rs), laid out as on the GPU.
type Lock = ptx_sync::TicketLock<u32, ptx_sync::Gpu>;
/// u32 words of the lock; `next` is its first word, `serving` starts the second line.
const LOCK_WORDS: usize = std::mem::size_of::<Lock>() / 4;
const NEXT: usize = 0;
const SERVING: usize = 32;
const DATA: usize = Lock::DATA_OFFSET / 4;

fn fifo(ctx: &Ctx) -> Result<String> {
    let (blocks, threads, iters) = (ctx.gpu.sm_count(), 256u32, 4u32);
    let total = blocks * threads * iters;
    let kernel = ctx.kernel("ticket_fifo")?;
    let lock = ctx.gpu.zeros::<u32>(LOCK_WORDS)?;
    // Unwritten entries stay u32::MAX, which is no ticket.
    let log = ctx.gpu.upload(&vec![u32::MAX; total as usize])?;
    let stats = ctx.gpu.zeros::<u32>(96)?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&lock).arg(&log).arg(&stats).arg(&iters);
    let cfg = launch_config(blocks, threads, 0);
    let took = unsafe { ctx.launch_and_wait(b, cfg, TIMEOUT) }?;
    let lock = ctx.gpu.download(&lock)?;
    let log = ctx.gpu.download(&log)?;
    let s = ctx.gpu.download(&stats)?;
    let (count, next, serving) = (lock[DATA], lock[NEXT], lock[SERVING]);
    if count != total || next != total || serving != total {
        return Err(format!(
            "count {count}, next ticket {next}, serving {serving} (all expected {total})"
        )
        .into());
    }
    if s[64] != total || s[32] != 1 || s[0] != 0 {
        return Err(format!(
            "{} sections (expected {total}), most holders {}, holders left {}",
            s[64], s[32], s[0]
        )
        .into());
    }
    let out_of_order: Vec<usize> = (0..log.len()).filter(|&i| log[i] != i as u32).collect();
    if let Some(&i) = out_of_order.first() {
        return Err(format!(
            "{} of {total} log entries out of ticket order; first: log[{i}] = {}",
            out_of_order.len(),
            log[i]
        )
        .into());
    }
    Ok(format!(
        "{total} critical sections by {blocks}x{threads} threads in ticket order (log[i] == i for all {total}), exact count; most holders at once: 1; {:.0} ns per section",
        took.as_secs_f64() * 1e9 / total as f64
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![
        TIMEOUT;
        "ticket_lock_fifo_all_sms_x256" => fifo,
    ]
}
