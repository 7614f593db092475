//! Example 2: producer blocks and consumer blocks through a ring buffer in global memory
//! (kernel `producer_consumer`, `kernels/src/producer_consumer.rs`). Half the blocks produce
//! and half consume, through a ring of 1,024 slots. Tickets (`fetch_add`) give each push and
//! pop a slot and a round; a per-slot turn word (`Atomic<u32, Gpu>`, `store(Release)` /
//! `wait_until(Acquire)`) passes each slot from its producer to its consumer and back.
//! Consumers spin on producers, so the launch is cooperative (`launch!(cooperative ...)`, sized
//! with `gpu.cooperative_limit`), 8 items per producer thread. Checked: every item consumed
//! exactly once, the consumed sum, both ticket counts, and every slot's final turn.
//!
//! Run it on its own, in `examples/`:
//!
//! ```sh
//! cargo run --release --example 02-producer-consumer
//! ```
//!
//! It prints `example producer_consumer: ok (...)` and exits 0; on a machine without an NVIDIA
//! driver it prints `examples: skipped: no CUDA driver (...)` and exits 2. The binary
//! `examples-app` runs it together with the other examples.

use examples_app::{BLOCK, Failed, WATCHDOG, check};
use ptx_sync_host::{Device, Module, launch};
use std::process::ExitCode;

/// The name this example reports under: `example producer_consumer: ok (...)`.
pub const NAME: &str = "producer_consumer";

fn main() -> ExitCode {
    examples_app::run_examples(&[(NAME, run)])
}

/// Producer blocks and consumer blocks through a ring buffer of turn-flagged slots; every
/// item must be consumed exactly once.
pub fn run(gpu: &Device, kernels: &Module) -> Result<String, Failed> {
    let kernel = kernels.kernel("producer_consumer")?;
    // Consumers wait for producers (and producers for consumers once the ring is full): every
    // block must be resident, so the launch is cooperative and sized to fit.
    let limit = gpu.cooperative_limit(&kernel, BLOCK, 0)?;
    let blocks = (2 * gpu.sm_count()).min(limit.max_blocks) & !1;
    check(blocks >= 2, || {
        format!(
            "only {} block(s) fit a cooperative launch",
            limit.max_blocks
        )
    })?;
    let (producer_blocks, per_thread, cap) = (blocks / 2, 8u32, 1024u32);
    let items = producer_blocks * BLOCK * per_thread;
    let turns = gpu.zeros::<u32>(cap as usize)?;
    let data = gpu.zeros::<u32>(cap as usize)?;
    let tickets = gpu.zeros::<u32>(2)?;
    let seen = gpu.zeros::<u32>(items as usize)?;
    let sum = gpu.zeros::<u64>(1)?;
    unsafe {
        launch!(cooperative kernel<<<blocks, BLOCK, 0, gpu>>>(
            &turns, &data, cap, &tickets, producer_blocks, per_thread, &seen, &sum
        ))
    }?;
    gpu.wait(WATCHDOG)?;

    let seen = gpu.download(&seen)?;
    if let Some(item) = seen.iter().position(|&times| times != 1) {
        let wrong = seen.iter().filter(|&&times| times != 1).count();
        return Err(Failed::Wrong(format!(
            "item {item} was consumed {} times ({wrong} of {items} items not exactly once)",
            seen[item]
        )));
    }
    let (got, want) = (
        gpu.download(&sum)?[0],
        u64::from(items) * u64::from(items - 1) / 2,
    );
    check(got == want, || {
        format!("consumed sum {got}, expected {want}")
    })?;
    let tickets = gpu.download(&tickets)?;
    check(tickets == [items, items], || {
        format!("{tickets:?} tickets taken, expected [{items}, {items}]")
    })?;
    // Slot s served the tickets t < items with t % cap == s, and its last consumer handed it on.
    let turns = gpu.download(&turns)?;
    for (slot, &turn) in (0u32..).zip(&turns) {
        let rounds = items / cap + u32::from(slot < items % cap);
        check(turn == 2 * rounds, || {
            format!("slot {slot} ended at turn {turn}, expected {}", 2 * rounds)
        })?;
    }
    Ok(format!(
        "{producer_blocks} producer and {producer_blocks} consumer blocks of {BLOCK}, a ring of \
         {cap} slots: {items} items each consumed exactly once, sum {want}"
    ))
}
