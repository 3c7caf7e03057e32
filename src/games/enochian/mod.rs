//! Enochian Chess (`spec/enochian.md`): four armies in two teams on one
//! 8x8 board. Being written: see issue 8.
