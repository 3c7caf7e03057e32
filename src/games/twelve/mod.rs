//! Twelve (`spec/twelve.md`): the boardless 12-card game. Being written.
