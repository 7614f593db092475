//! Primitive-shaped litmus kernels and the GPU side of MP at `Sys` scope (work in progress).
