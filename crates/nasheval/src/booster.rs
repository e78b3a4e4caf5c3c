//! The gradient-boosted trees of the `gbdt` backbone: LightGBM with the `lightgbm`
//! feature (the default), and without it a type with no values whose training and
//! loading are refused with the way out, so the rest of NashEval builds without
//! LightGBM's C++.

#[cfg(not(feature = "lightgbm"))]
mod absent;
#[cfg(feature = "lightgbm")]
mod lightgbm;

#[cfg(not(feature = "lightgbm"))]
pub(crate) use absent::Booster;
#[cfg(feature = "lightgbm")]
pub(crate) use lightgbm::Booster;

/// What a user reads when a LightGBM model is asked of a build without it.
#[cfg(not(feature = "lightgbm"))]
pub(crate) fn absent() -> String {
    format!(
        "this verdict was built without LightGBM (the `lightgbm` feature): use the linear backbone ({} linear), or build with default features",
        verdict_settings::Setting("backbone")
    )
}

/// Rows for LightGBM: features row-major, `f32` labels and optional row weights.
#[cfg_attr(not(feature = "lightgbm"), allow(dead_code))]
pub(crate) struct Rows<'a> {
    pub features: &'a [f64],
    pub labels: &'a [f32],
    pub weights: Option<&'a [f32]>,
}
