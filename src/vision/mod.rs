//! Camera recognition: seeing the table in a frame.
//!
//! [`scene`] renders synthetic frames with known truth for the tests and the
//! image fixtures.

pub mod accuracy;
pub mod calibration;
pub mod cards;
pub mod fixtures;
mod grow;
pub mod lattice;
mod outline;
pub mod photo;
pub mod recognise;
pub mod record;
pub mod scene;
pub mod templates;
pub mod watch;
