//! A seeded xorshift64 for the tests' random inputs: the same inputs on every run. The unit
//! tests use it as `crate::test_rng::Rng`, host/tests as a `#[path]` module.

/// xorshift64 (Marsaglia); a seed must not be zero.
pub struct Rng(pub u64);

impl Rng {
    /// The next value.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A value below `n` (`n > 0`).
    #[allow(dead_code)] // not every test that includes this file draws bounded values
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}
