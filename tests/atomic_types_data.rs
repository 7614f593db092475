// Shared by the atomic-type kernels (tests/kernels/src/atomic_types.rs) and the host checks
// (tests/src/cases/atomic_types.rs): the operands, so both sides agree exactly. `include!`d
// after mix.rs (it uses `mix`).

/// The float each thread offers to the min/max tests: a NaN for every 97th thread (min/max
/// must ignore it), otherwise a multiple of 1/4 in [-2500, 2500] (exact in f32 and f64).
#[inline(always)]
pub fn minmax_value(me: u32) -> f32 {
    if me.is_multiple_of(97) {
        f32::NAN
    } else {
        ((mix(me, 7) % 20001) as f32 - 10000.0) * 0.25
    }
}

/// The small integer lane `j` of thread `me` offers to the bfloat16 vector min/max (exact in
/// bfloat16: at most 8 significant bits).
#[inline(always)]
pub fn small_value(me: u32, j: u32) -> f32 {
    (mix(me, j) % 201) as f32 - 100.0
}

/// What each thread adds to the half vectors' lanes: each step is 0 or a power of two, so `k`
/// equal adds stay exact while `k` fits the significand: up to 2048 adds per `F16` lane (11
/// bits), 256 per `Bf16` lane (8 bits). The host refuses grids past that.
pub const HALF_STEPS: [f32; 8] = [1.0, 0.5, 0.25, -1.0, 2.0, 0.125, 0.0, -0.5];
