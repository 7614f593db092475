//! Litmus shapes as data. Locations are `x`, `y`, `z` (0, 1, 2); every location starts at 0.
//! An outcome is the registers each thread read, in order, then the final value of the
//! locations listed in `finals`.

/// One instruction of a litmus thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insn {
    /// Store a value to a location.
    St(usize, u32),
    /// Load a location into the thread's next register.
    Ld(usize),
    /// A fence (`fence.sc` in the synchronized variants; nothing in the relaxed controls).
    Fence,
}

/// A litmus shape and the outcome that shows a weak behaviour.
#[derive(Debug)]
pub struct Shape {
    pub name: &'static str,
    pub threads: &'static [&'static [Insn]],
    /// Locations whose final value is part of the outcome.
    pub finals: &'static [usize],
    /// The weak outcome: registers (thread by thread, in load order), then `finals`.
    pub weak: &'static [u32],
    /// Coherence shapes: the weak outcome is forbidden in every variant at one scope.
    pub coherence: bool,
}

use Insn::*;
const X: usize = 0;
const Y: usize = 1;
const Z: usize = 2;

/// The shapes the suite runs.
pub const SHAPES: &[Shape] = &[
    Shape {
        name: "MP",
        threads: &[&[St(X, 1), St(Y, 1)], &[Ld(Y), Ld(X)]],
        finals: &[],
        weak: &[1, 0],
        coherence: false,
    },
    Shape {
        name: "SB",
        threads: &[&[St(X, 1), Fence, Ld(Y)], &[St(Y, 1), Fence, Ld(X)]],
        finals: &[],
        weak: &[0, 0],
        coherence: false,
    },
    Shape {
        name: "LB",
        threads: &[&[Ld(X), St(Y, 1)], &[Ld(Y), St(X, 1)]],
        finals: &[],
        weak: &[1, 1],
        coherence: false,
    },
    Shape {
        name: "S",
        threads: &[&[St(X, 2), St(Y, 1)], &[Ld(Y), St(X, 1)]],
        finals: &[X],
        weak: &[1, 2],
        coherence: false,
    },
    Shape {
        name: "R",
        threads: &[&[St(X, 1), Fence, St(Y, 1)], &[St(Y, 2), Fence, Ld(X)]],
        finals: &[Y],
        weak: &[0, 2],
        coherence: false,
    },
    Shape {
        name: "2+2W",
        threads: &[&[St(X, 1), Fence, St(Y, 2)], &[St(Y, 1), Fence, St(X, 2)]],
        finals: &[X, Y],
        weak: &[1, 1],
        coherence: false,
    },
    Shape {
        name: "WRC",
        threads: &[&[St(X, 1)], &[Ld(X), St(Y, 1)], &[Ld(Y), Ld(X)]],
        finals: &[],
        weak: &[1, 1, 0],
        coherence: false,
    },
    Shape {
        name: "ISA2",
        threads: &[&[St(X, 1), St(Y, 1)], &[Ld(Y), St(Z, 1)], &[Ld(Z), Ld(X)]],
        finals: &[],
        weak: &[1, 1, 0],
        coherence: false,
    },
    Shape {
        name: "IRIW",
        threads: &[
            &[St(X, 1)],
            &[St(Y, 1)],
            &[Ld(X), Fence, Ld(Y)],
            &[Ld(Y), Fence, Ld(X)],
        ],
        finals: &[],
        weak: &[1, 0, 1, 0],
        coherence: false,
    },
    Shape {
        name: "RWC",
        threads: &[
            &[St(X, 1)],
            &[Ld(X), Fence, Ld(Y)],
            &[St(Y, 1), Fence, Ld(X)],
        ],
        finals: &[],
        weak: &[1, 0, 0],
        coherence: false,
    },
    Shape {
        name: "CoRR",
        threads: &[&[St(X, 1)], &[Ld(X), Ld(X)]],
        finals: &[],
        weak: &[1, 0],
        coherence: true,
    },
    Shape {
        name: "CoWW",
        threads: &[&[St(X, 1), St(X, 2)]],
        finals: &[X],
        weak: &[1],
        coherence: true,
    },
    Shape {
        name: "CoRW",
        threads: &[&[Ld(X), St(X, 1)], &[St(X, 2)]],
        finals: &[X],
        weak: &[2, 2],
        coherence: true,
    },
    Shape {
        name: "CoWR",
        threads: &[&[St(X, 1), Ld(X)], &[St(X, 2)]],
        finals: &[X],
        weak: &[2, 1],
        coherence: true,
    },
];

/// The shape called `name`.
pub fn shape(name: &str) -> Option<&'static Shape> {
    SHAPES.iter().find(|s| s.name == name)
}

impl Shape {
    /// Registers read by all threads together, plus the observed final locations.
    pub fn outcome_len(&self) -> usize {
        self.threads
            .iter()
            .map(|t| t.iter().filter(|i| matches!(i, Ld(_))).count())
            .sum::<usize>()
            + self.finals.len()
    }

    /// The locations the shape uses.
    pub fn locations(&self) -> usize {
        self.threads
            .iter()
            .flat_map(|t| t.iter())
            .filter_map(|i| match i {
                St(l, _) | Ld(l) => Some(l + 1),
                Fence => None,
            })
            .max()
            .unwrap_or(0)
    }
}
