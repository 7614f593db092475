//! Arithmetic for placement: `launch.rs`'s block shuffle and location permutations are
//! bijections because their multipliers are coprime to the sizes they permute.

/// Greatest common divisor.
pub fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
