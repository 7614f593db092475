//! `examples-app`: runs every numbered example (`examples/NN-*.rs`) on GPU 0, in order, and
//! prints `example <name>: ok (<what was checked>)` or `example <name>: FAILED: <why>` for
//! each. CI (`.ci/examples`) and the GPU suite (its test `examples_app`) run this binary.
//!
//! Exit status: 0 when every example passed, 1 when one failed, 2 when there is no CUDA
//! driver here (after printing `examples: skipped: no CUDA driver (<why>)`).
//!
//! Each example is a program of its own (`cargo run --release --example 01-sum-then-publish`);
//! here its file is a module, and this runs its `run` (its `main` stays unused here).

use std::process::ExitCode;

#[allow(dead_code)]
#[path = "../examples/01-sum-then-publish.rs"]
mod sum_then_publish;

#[allow(dead_code)]
#[path = "../examples/02-producer-consumer.rs"]
mod producer_consumer;

#[allow(dead_code)]
#[path = "../examples/03-hash-table.rs"]
mod hash_table;

#[allow(dead_code)]
#[path = "../examples/04-grid-reduction.rs"]
mod grid_reduction;

#[allow(dead_code)]
#[path = "../examples/05-host-tested-kernels.rs"]
mod host_tested_kernels;

fn main() -> ExitCode {
    examples_app::run_examples(&[
        (sum_then_publish::NAME, sum_then_publish::run),
        (producer_consumer::NAME, producer_consumer::run),
        (hash_table::NAME, hash_table::run),
        (grid_reduction::NAME, grid_reduction::run),
        (host_tested_kernels::NAME, host_tested_kernels::run),
    ])
}
