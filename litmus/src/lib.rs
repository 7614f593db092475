//! The litmus suite: does ptx-sync's PTX hold under the PTX memory model on real
//! hardware, and can the harness see it when it does not?
//!
//! GPU-free (CI checks them):
//! - [`shapes`]: the classic litmus shapes as data (threads, instructions, what is observed);
//! - [`sc`]: every sequentially consistent outcome of a shape, by enumerating interleavings;
//! - [`oracle`]: each outcome classified as SC, the shape's weak outcome (forbidden for the
//!   synchronized variants, allowed for the controls), or impossible (a harness error);
//! - [`launch`]: one launch's placement, location permutation and stress (shared, as source,
//!   with the kernels in `litmus/kernels`);
//! - [`handoff_layout`]: the primitive-shaped tests' buffer layout and `Sys` MP bins (shared,
//!   as source, with the kernels too);
//! - [`plan`]: launches drawn from a recorded seed, and the checks every drawn launch passes;
//! - [`report`] and [`tuning`]: the table, CSV, JSON, `LITMUS.md`, and weak rates by stress
//!   parameter.
//!
//! [`gpu`] runs the cells on a GPU; the `litmus` binary (`cargo xtask litmus`) drives it.

pub mod gpu;
pub mod handoff_layout;
pub mod launch;
pub mod layout;
pub mod oracle;
pub mod plan;
pub mod report;
pub mod sc;
pub mod shapes;
pub mod tuning;
