//! Inputs: each turns a device's signal (or a script, or keys) into
//! [`Observation`](crate::observation::Observation)s. The referee never sees
//! where they came from.

#[cfg(feature = "camera")]
pub mod camera;
pub mod frames;
pub mod live;
pub mod mat;
pub mod matplan;
pub mod matsim;
pub mod mock;
pub mod script;
pub mod vision;
