//! The GPU test cases, one module per area; each module's `tests()` lists its cases.

pub mod atomics;
pub mod convergence;
pub mod harness;
pub mod message;
pub mod mutex;
pub mod readme;

use crate::GpuTest;

/// All cases, in run order.
pub fn tests() -> Vec<GpuTest> {
    let mut all = harness::tests();
    all.extend(atomics::tests());
    all.extend(message::tests());
    all.extend(convergence::tests());
    all.extend(mutex::tests());
    all.extend(readme::tests());
    all
}
