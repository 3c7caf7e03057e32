//! The mock input device: a virtual table driven by the keyboard.
