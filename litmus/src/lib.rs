//! The litmus suite's host side (issue 5), GPU-free so CI checks it:
//! - [`tests`]: the classic litmus shapes as data (threads, instructions, what is observed);
//! - [`sc`]: every sequentially consistent outcome of a shape, by enumerating interleavings;
//! - [`oracle`]: each outcome classified as SC, the shape's weak outcome (forbidden for the
//!   synchronized variants, allowed for the controls), or impossible (a harness error);
//! - [`layout`]: the coprime permutation that pairs roles across CTAs, and location spacing.
//!
//! The GPU kernels and the runner (`cargo xtask litmus`) are not built yet.

pub mod layout;
pub mod oracle;
pub mod sc;
pub mod tests;
