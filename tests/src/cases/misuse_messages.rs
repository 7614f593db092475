//! Every debug trap says why on the process's stdout: the device's `printf` buffer reaches it
//! when the driver flushes it (at the failed synchronization, or at exit). Each trap case runs
//! in a child process of the runner, whose stdout is read whole.

use crate::runner::run_in_child;
use crate::{Ctx, GpuTest, Outcome};
use ptx_sync_testkit::Result;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(120);

/// The trap cases and the exact line each must print (the device crate's messages).
const TRAPS: [(&str, &str); 13] = [
    (
        "misuse_semaphore_over_release_traps",
        "ptx-sync: Semaphore::release: count would exceed MAX",
    ),
    (
        "misuse_latch_count_below_zero_traps",
        "ptx-sync: Latch::count_down: counted below zero",
    ),
    (
        "misuse_barrier_in_local_memory_traps",
        "ptx-sync: Barrier in local memory (a kernel's local variable): put it in shared or global memory",
    ),
    (
        "misuse_semaphore_init_above_max_traps",
        "ptx-sync: Semaphore::init: initial count above MAX",
    ),
    (
        "misuse_block_barrier_init_zero_traps",
        "ptx-sync: BlockBarrier::init: a barrier needs at least one thread",
    ),
    (
        "misuse_block_barrier_in_global_memory_traps",
        "ptx-sync: BlockBarrier: not in this block's shared memory (mbarrier needs a .shared::cta \
         address; a local or global one names another location)",
    ),
    (
        "misuse_latch_in_local_memory_traps",
        "ptx-sync: Latch in local memory (a kernel's local variable): put it in shared or global memory",
    ),
    (
        "misuse_mutex_in_local_memory_traps",
        "ptx-sync: Mutex in local memory (a kernel's local variable): put it in shared or global memory",
    ),
    (
        "misuse_ticket_lock_in_local_memory_traps",
        "ptx-sync: TicketLock in local memory (a kernel's local variable): put it in shared or global memory",
    ),
    (
        "misuse_semaphore_in_local_memory_traps",
        "ptx-sync: Semaphore in local memory (a kernel's local variable): put it in shared or global memory",
    ),
    (
        "misuse_rwlock_in_local_memory_traps",
        "ptx-sync: RwLock in local memory (a kernel's local variable): put it in shared or global memory",
    ),
    (
        "misuse_queue_in_local_memory_traps",
        "ptx-sync: Queue in local memory (a kernel's local variable): put it in shared or global memory",
    ),
    (
        "misuse_block_barrier_in_local_memory_traps",
        "ptx-sync: BlockBarrier: not in this block's shared memory (mbarrier needs a .shared::cta \
         address; a local or global one names another location)",
    ),
];

/// Expected: each case of [`TRAPS`] (semaphore over-release, latch below zero, barrier in local
/// memory, semaphore init above MAX, block barrier init(0) and in global memory; a latch,
/// mutex, ticket lock, semaphore, rwlock, queue and block barrier in local memory) passes in a
/// child process whose stdout holds its message as a line of its own, exactly as in [`TRAPS`]; misuse_fault_panic passes in a child
/// whose stdout holds the panic's message, "misuse_fault_panic: a kernel panicked on purpose",
/// after "panicked at" (the kernel crate's panic handler prints it).
fn traps_print_their_message(ctx: &Ctx) -> Result<String> {
    let mut bad = Vec::new();
    let mut lines = 0;
    let run = |name: &str| -> Result<Vec<String>> {
        let report = run_in_child(&ctx.ptx_dir, name, &[], Duration::from_secs(30))?;
        match report.outcome {
            Outcome::Pass(_) => Ok(report.stdout),
            Outcome::Skip(why) | Outcome::Fail(why) => {
                Err(format!("{name} did not pass in the child: {why}").into())
            }
        }
    };
    for (name, message) in TRAPS {
        let out = run(name)?;
        if out.iter().any(|l| l.trim_end() == message) {
            lines += 1;
        } else {
            bad.push(format!(
                "{name}: no line `{message}` in its stdout: {out:?}"
            ));
        }
    }
    let out = run("misuse_fault_panic")?;
    let text = out.join("\n");
    let want = "misuse_fault_panic: a kernel panicked on purpose";
    match (text.find("panicked at"), text.find(want)) {
        (Some(at), Some(msg)) if at < msg => lines += 1,
        _ => bad.push(format!(
            "misuse_fault_panic: no `panicked at ...` then `{want}` in its stdout: {out:?}"
        )),
    }
    if !bad.is_empty() {
        return Err(bad.join("; ").into());
    }
    Ok(format!(
        "{lines} trapping kernels printed their exact message on the child's stdout"
    ))
}

pub fn tests() -> Vec<GpuTest> {
    crate::cases![TIMEOUT;
        "misuse_traps_print_their_message" => traps_print_their_message,
    ]
}
