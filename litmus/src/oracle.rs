//! Classifies an observed outcome of a litmus instance.
//!
//! Under the PTX memory model (PTX ISA, "Memory Consistency Model"; the formal model in
//! NVlabs/ptxmemorymodel, Lustig et al., ASPLOS 2019):
//! - the synchronized variants (release/acquire at a scope that includes both threads, and
//!   `fence.sc` where the shape needs store-to-load order) forbid the shape's weak outcome:
//!   release/acquire patterns give causality order for MP, S, LB, WRC, ISA2; `fence.sc` orders
//!   SB, R, 2+2W, RWC, IRIW;
//! - coherence (CoRR, CoWW, CoRW, CoWR) holds for morally strong accesses in every variant;
//! - the relaxed controls, and `.cta` scope between different CTAs (not morally strong), allow
//!   the weak outcome;
//! - any outcome that is neither SC nor the weak one cannot happen at all: the harness is wrong.

use crate::sc;
use crate::shapes::Shape;
use std::collections::BTreeSet;

/// How a test instance was built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Release/acquire (and `fence.sc` where needed) at a scope covering both threads.
    Synchronized,
    /// Every access relaxed at `.gpu` scope, no fences.
    Relaxed,
    /// The synchronized code at `.cta` scope, run by threads of different CTAs: a control
    /// (the scope does not include the other thread, so nothing is morally strong).
    CtaAcrossCtas,
    /// The synchronized code at `.cta` scope, every role in one CTA (different warps).
    CtaWithinCta,
}

impl Variant {
    /// Every variant, in report order.
    pub const ALL: [Variant; 4] = [
        Variant::Synchronized,
        Variant::CtaWithinCta,
        Variant::Relaxed,
        Variant::CtaAcrossCtas,
    ];

    /// Short name (report, CLI).
    pub fn name(self) -> &'static str {
        match self {
            Variant::Synchronized => "sync",
            Variant::Relaxed => "relaxed",
            Variant::CtaAcrossCtas => "cta-across-ctas",
            Variant::CtaWithinCta => "cta-within-cta",
        }
    }

    /// The PTX scope of its accesses and fences.
    pub fn scope(self) -> &'static str {
        match self {
            Variant::Synchronized | Variant::Relaxed => "gpu",
            Variant::CtaAcrossCtas | Variant::CtaWithinCta => "cta",
        }
    }

    /// Whether the roles of an instance run in one CTA.
    pub fn within_cta(self) -> bool {
        self == Variant::CtaWithinCta
    }

    /// The kernel suffix (`litmus/kernels/src/shapes.rs`): `sync_gpu`, `relaxed_gpu`, `sync_cta`.
    pub fn kernel_suffix(self) -> &'static str {
        match self {
            Variant::Synchronized => "sync_gpu",
            Variant::Relaxed => "relaxed_gpu",
            Variant::CtaAcrossCtas | Variant::CtaWithinCta => "sync_cta",
        }
    }

    /// Whether it is a control (expected to show weak outcomes) rather than a claim.
    pub fn is_control(self) -> bool {
        matches!(self, Variant::Relaxed | Variant::CtaAcrossCtas)
    }
}

/// The class of one observed outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Some interleaving produces it.
    Sc,
    /// The shape's weak outcome, and the model allows it for this variant.
    WeakAllowed,
    /// The shape's weak outcome, and the model forbids it for this variant: a failure.
    Forbidden,
    /// No execution can produce it: a harness error.
    Impossible,
}

/// The oracle of one shape.
pub struct Oracle {
    shape: &'static Shape,
    sc: BTreeSet<Vec<u32>>,
}

impl Oracle {
    pub fn new(shape: &'static Shape) -> Oracle {
        Oracle {
            shape,
            sc: sc::outcomes(shape),
        }
    }

    /// Every SC outcome, sorted.
    pub fn sc_outcomes(&self) -> &BTreeSet<Vec<u32>> {
        &self.sc
    }

    /// Whether the model forbids the weak outcome for `variant`.
    pub fn forbids_weak(&self, variant: Variant) -> bool {
        match variant {
            Variant::Synchronized | Variant::CtaWithinCta => true,
            // Coherence needs morally strong accesses: same scope covering both threads.
            Variant::Relaxed => self.shape.coherence,
            // Accesses of one thread are morally strong to each other (program order), so a
            // one-thread coherence shape (CoWW) holds at any scope; across CTAs at `.cta`,
            // nothing else does.
            Variant::CtaAcrossCtas => self.shape.coherence && self.shape.threads.len() == 1,
        }
    }

    pub fn classify(&self, outcome: &[u32], variant: Variant) -> Class {
        if self.sc.contains(outcome) {
            Class::Sc
        } else if outcome == self.shape.weak {
            if self.forbids_weak(variant) {
                Class::Forbidden
            } else {
                Class::WeakAllowed
            }
        } else {
            Class::Impossible
        }
    }
}
