//! The multi-GPU suite's `Sys`-scope protocols (tests/src/cases/multi_gpu_plan.rs), mounted as
//! tests/kernels mounts them: the plan names its constants through `super`.

#[path = "../../src/cases/multi_gpu_plan.rs"]
#[allow(dead_code)] // the message and ping-pong protocols are not used here
mod plan;

pub use plan::*;
