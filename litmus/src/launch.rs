//! One launch of a litmus kernel: where every role of every instance runs, where its locations
//! live, and how the rest of the grid stresses memory. core only: the host crate uses it to
//! build and check launches, and the kernels (`litmus/kernels`) include this very file, so both
//! sides compute placement with the same code.
//!
//! Parallel testing (Levine et al., ASPLOS 2023): every testing thread plays *every* role of a
//! shape, each for a different instance, back to back. Thread (block `b`, lane `l`) plays role
//! `r` of instance `(b + r * d(l)) mod T` (across CTAs) or `(l + r * lane_step) mod W` in its own
//! block (within one CTA). For a fixed role both maps are bijections, so each (instance, role)
//! is played exactly once; `d(l)` in `1..T` with `T` prime (or `lane_step` checked by
//! [`Launch::check`]) puts the roles of one instance in different CTAs (or different warps).

/// Registers (loads) an instance may record; the outcome adds up to two final values.
pub const MAX_REGS: u32 = 4;
/// Locations a shape may use (x, y, z).
pub const MAX_LOCATIONS: u32 = 3;
/// No final location.
pub const NO_FINAL: u32 = u32::MAX;
/// Words between location regions: one instance's locations never share 64 words (weak
/// behaviour fades when test locations sit within 32-64 words; Sorensen & Donaldson, PLDI 2016).
pub const REGION_GAP: u64 = 64;
/// Histogram bins: an outcome of up to 4 values in 0..=3, two bits each; the last bin counts
/// outcomes with a value above 3 (a harness error: no test stores more than 2).
pub const BINS: u32 = 257;
/// The bin of an outcome with a value outside 0..=3.
pub const GARBAGE_BIN: u32 = 256;

/// Everything a launch's kernels read. `#[repr(C)]`, all `u32`, uploaded as an array.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// The seed this launch was drawn from (recorded, not used by the kernels).
    pub seed: u32,
    /// Blocks in the grid (testing and stressing).
    pub grid_blocks: u32,
    /// Threads per block (`W`).
    pub block_threads: u32,
    /// Blocks that run the test (`T`); the others stress memory.
    pub testing_blocks: u32,
    /// Physical block `p` is logical block `(p * block_mul + block_add) mod grid_blocks`;
    /// logical blocks below `testing_blocks` test. `block_mul` is coprime to `grid_blocks`.
    pub block_mul: u32,
    pub block_add: u32,
    /// 1: the roles of an instance run in one CTA (different warps); 0: in different CTAs.
    pub within_cta: u32,
    /// Within one CTA: role `r` plays at lane `(l + r * lane_step) mod W`.
    pub lane_step: u32,
    /// Across CTAs: `d(l) = 1 + (l * step_mul + step_add) mod (T - 1)`.
    pub step_mul: u32,
    pub step_add: u32,
    /// Location `loc` of instance `i` is slot `(i * loc_mul[loc]) mod N` of region `loc`
    /// (`N` = instances), so the slots of one instance's locations are unrelated, and the
    /// regions are [`REGION_GAP`] words apart.
    pub loc_mul: [u32; MAX_LOCATIONS as usize],
    /// Words from one slot of a region to the next: below 32, several instances share a
    /// 128-byte line (see `plan::STRIDES`).
    pub stride: u32,
    /// Roles of the shape (threads of the litmus test).
    pub roles: u32,
    /// Locations the shape uses.
    pub locations: u32,
    /// Registers (loads) per instance.
    pub regs: u32,
    /// Locations whose final value is part of the outcome, or [`NO_FINAL`].
    pub finals: [u32; 2],
    /// Memory stress by the non-testing blocks: each block hammers one of `stress_lines` lines
    /// of the scratch area, `stress_iters` times, with access `stress_pattern` (0: store-store,
    /// 1: store-load, 2: load-store, 3: load-load).
    pub stress_lines: u32,
    /// Words between stressed lines (and line `k` is `(k * 7 + stress_line_offset) mod
    /// scratch_lines`).
    pub stress_line_words: u32,
    pub stress_line_offset: u32,
    pub stress_iters: u32,
    pub stress_pattern: u32,
    /// The same stress by the testing threads before the test.
    pub pre_stress_iters: u32,
    pub pre_stress_pattern: u32,
    /// 1: testing warps meet at a bounded spin rendezvous right before the test.
    pub rendezvous: u32,
    /// Scratch area size in words.
    pub scratch_words: u32,
}

/// Words of [`Launch`] (what the host uploads per launch).
pub const LAUNCH_WORDS: usize = core::mem::size_of::<Launch>() / 4;

impl Launch {
    /// Instances per launch: one per testing thread.
    pub const fn instances(&self) -> u32 {
        self.testing_blocks * self.block_threads
    }

    /// The logical block of physical block `p` (logical blocks below `testing_blocks` test).
    pub const fn logical_block(&self, p: u32) -> u32 {
        ((p as u64 * self.block_mul as u64 + self.block_add as u64) % self.grid_blocks as u64)
            as u32
    }

    /// Across CTAs: how many blocks apart consecutive roles of one instance run, for lane `l`.
    pub const fn block_step(&self, lane: u32) -> u32 {
        let span = if self.testing_blocks > 1 {
            self.testing_blocks - 1
        } else {
            1
        };
        1 + ((lane as u64 * self.step_mul as u64 + self.step_add as u64) % span as u64) as u32
    }

    /// The instance whose role `role` the thread at (logical testing block `b`, lane `l`) plays.
    pub const fn instance(&self, b: u32, l: u32, role: u32) -> u32 {
        let w = self.block_threads;
        if self.within_cta != 0 {
            b * w + ((l as u64 + role as u64 * self.lane_step as u64) % w as u64) as u32
        } else {
            let t = self.testing_blocks as u64;
            let bi = (b as u64 + role as u64 * self.block_step(l) as u64) % t;
            bi as u32 * w + l
        }
    }

    /// Words from the start of one location's region to the next: its slots, then a
    /// [`REGION_GAP`], so the locations of one instance are at least `stride + REGION_GAP`
    /// words apart whatever their slots.
    pub const fn region_words(&self) -> u64 {
        self.instances() as u64 * self.stride as u64 + REGION_GAP
    }

    /// Word offset of location `loc` of instance `i` in the test memory.
    pub const fn word(&self, i: u32, loc: u32) -> u64 {
        let n = self.instances() as u64;
        let slot = i as u64 * self.loc_mul[loc as usize] as u64 % n;
        loc as u64 * self.region_words() + slot * self.stride as u64
    }

    /// Words of test memory the launch needs.
    pub const fn test_words(&self) -> u64 {
        self.locations as u64 * self.region_words()
    }

    /// Word offset (in the scratch area) of the line a stressing block or thread hammers.
    pub const fn stress_word(&self, logical_block: u32) -> u32 {
        let lines = self.scratch_words / self.stress_line_words;
        let k = logical_block % self.stress_lines;
        ((k as u64 * 7 + self.stress_line_offset as u64) % lines as u64) as u32
            * self.stress_line_words
    }
}

/// Folds an outcome (values in load order, then finals) into its histogram bin.
pub const fn bin(values: &[u32]) -> u32 {
    let mut code = 0;
    let mut k = 0;
    while k < values.len() {
        if values[k] > 3 {
            return GARBAGE_BIN;
        }
        code |= values[k] << (2 * k);
        k += 1;
    }
    code
}
