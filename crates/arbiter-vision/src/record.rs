//! Whole games recorded as frame sequences: a table script rendered the
//! way a fixed camera over the table would film it being played.
//!
//! Each table step becomes a few frames with a hand over the table (the
//! player at work) followed by still frames; a `busy` step becomes hand
//! frames only. The camera, the cloth and every card's place stay put from
//! frame to frame ([`SceneParams::anchor`]), so a frame source replaying
//! the recording settles on exactly the script's tables; a card put down
//! anew (swapped, flipped, replaced) lands a little elsewhere, as by hand
//! ([`SceneParams::laid_again`]).

use crate::scene::{CARD_ASPECT, GAP_FRACTION, HandParams, SceneParams};
use arbiter_core::observation::Observation;
use arbiter_core::script::Script;
use arbiter_core::table::{Cell, Table};

/// How to film a game.
#[derive(Clone, Debug)]
pub struct Filming {
    /// The camera and the table; `anchor` and `pitch_px` are worked out
    /// from the game.
    pub scene: SceneParams,
    /// Still frames after each change (replayed, they must span the
    /// settle time: 4 frames at 5 fps span 600 ms).
    pub still: usize,
    /// Frames with a hand before each change shows.
    pub hand: usize,
}

impl Default for Filming {
    fn default() -> Self {
        Filming {
            scene: SceneParams {
                width: 1280,
                height: 720,
                layout_rotation_deg: 4.0,
                per_card_skew_deg: 3.0,
                gap_jitter_px: 1.5,
                tilt_deg: 10.0,
                light_gradient: 0.25,
                shadow: 0.15,
                blur_sigma: 0.6,
                noise_sigma: 2.0,
                jpeg_quality: Some(90),
                seed: 7,
                ..SceneParams::clean()
            },
            still: 4,
            hand: 2,
        }
    }
}

/// The frames of a game: each a table and how to film it.
pub fn film(script: &Script, how: &Filming) -> Vec<(Table, SceneParams)> {
    let tables: Vec<&Table> = script
        .observations()
        .filter_map(|o| match o {
            Observation::Table(t) => Some(t),
            _ => None,
        })
        .collect();
    let mut scene = how.scene.clone();
    // The whole game must fit the frame: every cell it ever uses.
    let (mut lo, mut hi) = (Cell::new(i32::MAX, i32::MAX), Cell::new(i32::MIN, i32::MIN));
    for (a, b) in tables.iter().filter_map(|t| t.bounds()) {
        lo = Cell::new(lo.col.min(a.col), lo.row.min(a.row));
        hi = Cell::new(hi.col.max(b.col), hi.row.max(b.row));
    }
    if lo.col <= hi.col {
        scene.anchor = Some((
            (lo.col + hi.col) as f32 / 2.0,
            (lo.row + hi.row) as f32 / 2.0,
        ));
        let cols = (hi.col - lo.col + 1) as f32;
        let rows = (hi.row - lo.row + 1) as f32;
        // A card width w takes w(1 + gap) across and w(aspect + gap) down;
        // leave a margin for tilt, rotation and the camera nudges.
        let across = scene.width as f32 * 0.88 / (cols * (1.0 + GAP_FRACTION));
        let down = scene.height as f32 * 0.88 / (rows * (CARD_ASPECT + GAP_FRACTION));
        scene.pitch_px = across.min(down).min(100.0);
    }
    let mut frames = Vec::new();
    let mut last: Option<Table> = None;
    let mut k = 0u32;
    let mut hand = |table: &Table, scene: &SceneParams, frames: &mut Vec<(Table, SceneParams)>| {
        for _ in 0..how.hand {
            k += 1;
            let mut p = scene.clone();
            p.hand = Some(HandParams {
                reach: 0.25 + 0.1 * (k % 4) as f32,
                from_deg: Some((k * 137 % 360) as f32),
                size: 1.0,
            });
            frames.push((table.clone(), p));
        }
    };
    for obs in script.observations() {
        match obs {
            Observation::Table(t) => {
                if let Some(before) = &last {
                    for (cell, token) in t.iter() {
                        if before.get(cell).is_some_and(|b| b != token) {
                            match scene.laid_again.iter_mut().find(|l| l.0 == cell) {
                                Some(l) => l.1 += 1,
                                None => scene.laid_again.push((cell, 1)),
                            }
                        }
                    }
                    hand(t, &scene, &mut frames);
                }
                frames.extend((0..how.still).map(|_| (t.clone(), scene.clone())));
                last = Some(t.clone());
            }
            Observation::Busy => {
                let t = last.clone().unwrap_or_default();
                hand(&t, &scene, &mut frames);
            }
            _ => {}
        }
    }
    frames
}
