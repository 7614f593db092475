use std::fmt;
use std::str::FromStr;

/// A GPU architecture the kernels are built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// Volta. CUDA 12's ptxas is the last that assembles it (CUDA 13 dropped sm_70).
    Sm70,
    /// Turing.
    Sm75,
    /// Ampere.
    Sm80,
    /// Hopper (cluster scope, 128-bit atomics).
    Sm90,
}

impl Arch {
    /// Every supported architecture, oldest first.
    pub const SUPPORTED: [Arch; 4] = [Arch::Sm70, Arch::Sm75, Arch::Sm80, Arch::Sm90];

    /// What `build-ptx`, `stage` and `test-gpu` build for when no `--arch` is given.
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

    /// Whether the PTX checks must assemble for this arch, a missing `ptxas` being an error.
    /// False only for sm_70: the current ptxas (CUDA 13, `pip install nvidia-cuda-nvcc`) cannot
    /// assemble it, so it is checked only where a CUDA 12 ptxas is installed.
    pub fn ptxas_required(self) -> bool {
        self != Arch::Sm70
    }

    /// The archs the PTX checks (`cargo xtask ptxas`, `tests/tests/ptxas.rs`) assemble for on
    /// this machine: every [`ptxas_required`](Arch::ptxas_required) arch, whether or not a
    /// ptxas is found (so a missing one fails the check), plus sm_70 when
    /// [`find_ptxas`](crate::find_ptxas) finds a ptxas that supports it. The second value says
    /// which archs were left out and why.
    pub fn ptxas_archs_checked() -> (Vec<Arch>, Vec<String>) {
        let mut checked = Vec::new();
        let mut skipped = Vec::new();
        for arch in Arch::SUPPORTED {
            if arch.ptxas_required() {
                checked.push(arch);
                continue;
            }
            match crate::find_ptxas(arch) {
                Ok(_) => checked.push(arch),
                Err(e) => skipped.push(format!("{arch} skipped: {e}")),
            }
        }
        (checked, skipped)
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.number())
    }
}

impl FromStr for Arch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Arch::SUPPORTED
            .into_iter()
            .find(|a| a.to_string() == s)
            .ok_or_else(|| format!("unknown arch `{s}`: expected sm_70, sm_75, sm_80 or sm_90"))
    }
}
