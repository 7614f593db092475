use std::fmt;
use std::str::FromStr;

/// A GPU architecture a kernel crate is built for (`-C target-cpu=sm_XX`).
///
/// ptx-sync needs sm_70 or newer: the PTX memory model's `.acquire`, `.release`, `.relaxed`
/// and scoped `fence` instructions start there (PTX ISA 6.0, Volta).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// Volta. CUDA 12's ptxas is the last that assembles it (CUDA 13 dropped sm_70).
    Sm70,
    /// Turing.
    Sm75,
    /// Ampere (`mbarrier`: `BlockBarrier`).
    Sm80,
    /// Hopper (cluster scope and barriers, 128-bit atomics).
    Sm90,
}

impl Arch {
    /// Every supported architecture, oldest first.
    pub const SUPPORTED: [Arch; 4] = [Arch::Sm70, Arch::Sm75, Arch::Sm80, Arch::Sm90];

    /// What a build uses when no arch is given (and `PTX_SYNC_ARCH` is unset).
    pub const DEFAULT: Arch = Arch::Sm90;

    /// The PTX ISA version passed to rustc (`-C target-feature=+ptxNN`), the same for every arch:
    /// 8.4 is the first with `.b128` atomics at `.sys` scope (sm_90; 8.3 added `.b128`, 8.2
    /// `ld/st.mmio`). Loading it needs a CUDA 12.4+ driver; assembling it a CUDA 12.4+ ptxas.
    pub const PTX_ISA: (u32, u32) = (8, 4);

    /// The number in `sm_XX`.
    pub fn number(self) -> u32 {
        match self {
            Arch::Sm70 => 70,
            Arch::Sm75 => 75,
            Arch::Sm80 => 80,
            Arch::Sm90 => 90,
        }
    }

    /// The rustc target feature for [`Arch::PTX_ISA`], e.g. `+ptx84`.
    pub fn ptx_feature(self) -> String {
        format!("+ptx{}{}", Self::PTX_ISA.0, Self::PTX_ISA.1)
    }

    /// Whether the current ptxas (CUDA 13) assembles this arch. False only for sm_70: CUDA 13
    /// dropped Volta, so only a CUDA 12 ptxas checks it.
    pub fn ptxas_required(self) -> bool {
        self != Arch::Sm70
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.number())
    }
}

impl FromStr for Arch {
    type Err = ParseArchError;
    fn from_str(s: &str) -> Result<Self, ParseArchError> {
        Arch::SUPPORTED
            .into_iter()
            .find(|a| a.to_string() == s)
            .ok_or_else(|| ParseArchError {
                text: s.to_string(),
            })
    }
}

/// Why a string is not an [`Arch`] (`"sm_60".parse::<Arch>()`): it names no supported arch.
/// Displays as `` unknown arch `sm_60`: expected sm_70, sm_75, sm_80 or sm_90 (ptx-sync needs
/// sm_70 or newer) ``; `?` in a function returning [`Error`](crate::Error) turns it into
/// [`Error::Config`](crate::Error::Config) with that text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseArchError {
    text: String,
}

impl ParseArchError {
    /// The rejected text.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for ParseArchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown arch `{}`: expected sm_70, sm_75, sm_80 or sm_90 (ptx-sync needs sm_70 or newer)",
            self.text
        )
    }
}

impl std::error::Error for ParseArchError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_old_archs_are_refused() {
        for a in Arch::SUPPORTED {
            assert_eq!(a.to_string().parse::<Arch>(), Ok(a));
        }
        assert_eq!(Arch::Sm90.ptx_feature(), "+ptx84");
        let e = "sm_60".parse::<Arch>().unwrap_err();
        assert_eq!(e.text(), "sm_60");
        assert_eq!(
            e.to_string(),
            "unknown arch `sm_60`: expected sm_70, sm_75, sm_80 or sm_90 (ptx-sync needs sm_70 or newer)"
        );
        // The case matters, as before: `SM_90` is not an arch.
        assert_eq!("SM_90".parse::<Arch>().unwrap_err().text(), "SM_90");
        let shown = e.to_string();
        let config: crate::Error = e.into();
        assert!(
            matches!(&config, crate::Error::Config(m) if *m == shown),
            "{config}"
        );
    }
}
