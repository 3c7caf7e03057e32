//! Camera recognition: seeing the table in a frame.
//!
//! [`scene`] renders synthetic frames with known truth for the tests and the
//! image fixtures.

pub mod cards;
pub mod recognise;
pub mod scene;
