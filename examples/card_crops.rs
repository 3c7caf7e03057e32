//! Every card the default reader finds in some photos, straightened and
//! written out, with its outline: the raw material for trying an
//! identifier on real photographs outside the product (tools/identifier).
//!
//! `cargo run --release --example card_crops -- --deck DECK --out DIR IMAGE...`
//! writes `DIR/<image>_<k>.png` (each card found, straightened to 128×176,
//! portrait, either way up) and `DIR/crops.jsonl` (`image`, `k`, `corners`,
//! and the token the reader gave it). `--faces DIR` instead writes each
//! photo's card as `deck learn` takes it (`DIR/<token>.png`, found on its
//! surface and straightened). `--learned FACES` also names each card with
//! the learned identifier (`pipeline::learned`) against the deck whose
//! faces are in FACES (found and straightened as `deck learn` does), and
//! writes `DIR/reads.jsonl` as `arbiter recognise --json` would, for
//! `score.py`.
use std::path::{Path, PathBuf};

use arbiter::vision::cards::rectify;
use arbiter::vision::finder::find;
use arbiter::vision::photo::card_of;
use arbiter::vision::pipeline::geometry::Quad;
use arbiter::vision::pipeline::learned::{LearnedDeck, Network, Patch};
use arbiter::vision::templates::DeckModel;
use arbiter_core::table::Token;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let (mut deck, mut out, mut faces, mut images) = (None, None, None, Vec::new());
    let mut inner = false;
    let mut learned_faces: Option<PathBuf> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--deck" => deck = args.next().map(PathBuf::from),
            "--out" => out = args.next().map(PathBuf::from),
            "--faces" => faces = args.next().map(PathBuf::from),
            "--inner" => inner = true,
            "--learned" => learned_faces = args.next().map(PathBuf::from),
            _ => images.push(PathBuf::from(a)),
        }
    }
    let out = out.ok_or("usage: card_crops --out DIR (--deck DECK IMAGE... | --faces DIR)")?;
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let open = |p: &Path| {
        image::open(p)
            .map(|i| i.to_rgb8())
            .map_err(|e| format!("{}: {e}", p.display()))
    };
    if let Some(dir) = faces {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        paths.sort();
        for p in paths {
            let card = card_of(&open(&p)?, 128).ok_or(format!("{}: no card", p.display()))?;
            let card = image::imageops::resize(&card, 128, 176, image::imageops::Triangle);
            let name = p.file_stem().and_then(|s| s.to_str()).unwrap_or("card");
            card.save(out.join(format!("{name}.png")))
                .map_err(|e| e.to_string())?;
        }
        return Ok(());
    }
    let deck = deck.ok_or("--deck DECK is needed with images")?;
    let model = DeckModel::load(&deck).map_err(|e| e.to_string())?;
    let net = Network::embedded().map_err(|e| e.to_string())?;
    let learned = match &learned_faces {
        Some(dir) => Some(LearnedDeck::from_faces(net, &faces_in(dir)?)),
        None => None,
    };
    let mut lines = String::new();
    let mut reads = String::new();
    for p in &images {
        let mut cells = Vec::new();
        let frame = open(p)?;
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("image");
        for (k, d) in find(&frame, &model).cards.iter().enumerate() {
            let corners = if inner {
                inner_card(&frame, &d.corners).unwrap_or(d.corners)
            } else {
                d.corners
            };
            let card = rectify(&frame, &corners);
            let card = image::imageops::resize(&card, 128, 176, image::imageops::Triangle);
            card.save(out.join(format!("{stem}_{k}.png")))
                .map_err(|e| e.to_string())?;
            if let Some(deck) = &learned {
                let naming =
                    Patch::from_frame(&frame, &Quad(corners)).map(|patch| deck.name(net, &patch));
                let token = naming
                    .as_ref()
                    .and_then(|n| n.token)
                    .map_or("??".to_string(), |t| t.to_string());
                // What it saw, named or not: to see why a card is `??`.
                let seen = naming.map(|n| {
                    serde_json::json!({"nearest": n.nearest.to_string(),
                        "likeness": n.likeness, "margin": n.margin})
                });
                cells.push(serde_json::json!({"cell": [k, 0], "token": token, "seen": seen}));
            }
            let token = d.token.map(|t| t.to_string());
            lines.push_str(
                &serde_json::json!({"image": p.file_name().and_then(|s| s.to_str()),
                    "k": k, "corners": corners, "token": token})
                .to_string(),
            );
            lines.push('\n');
        }
        let name = p.file_name().and_then(|s| s.to_str());
        reads.push_str(
            &serde_json::json!({"image": name, "busy": false, "cells": cells}).to_string(),
        );
        reads.push('\n');
    }
    if learned.is_some() {
        std::fs::write(out.join("reads.jsonl"), reads).map_err(|e| e.to_string())?;
    }
    std::fs::write(out.join("crops.jsonl"), lines).map_err(|e| e.to_string())
}

/// Each `DIR/<token>.png` as `deck learn` takes it: the card found on its
/// surface and straightened.
fn faces_in(dir: &Path) -> Result<Vec<(Token, image::RgbImage)>, String> {
    let mut faces = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let p = e.map_err(|e| e.to_string())?.path();
        let Some(stem) = p.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let token = if stem == "back" {
            Token::Down
        } else {
            match Token::parse(stem) {
                Ok(Some(t)) => t,
                _ => continue,
            }
        };
        let img = image::open(&p)
            .map_err(|e| format!("{}: {e}", p.display()))?
            .to_rgb8();
        faces.push((
            token,
            card_of(&img, 256).ok_or(format!("{}: no card", p.display()))?,
        ));
    }
    Ok(faces)
}

/// `--inner`: the card `deck learn` would find in the window about an
/// outline (a box cut round a tilted card holds table too).
fn inner_card(frame: &image::RgbImage, c: &[(f32, f32); 4]) -> Option<[(f32, f32); 4]> {
    let (x0, x1) = c
        .iter()
        .fold((f32::MAX, f32::MIN), |a, p| (a.0.min(p.0), a.1.max(p.0)));
    let (y0, y1) = c
        .iter()
        .fold((f32::MAX, f32::MIN), |a, p| (a.0.min(p.1), a.1.max(p.1)));
    let m = 0.06 * (x1 - x0).max(y1 - y0);
    let (x0, y0) = ((x0 - m).max(0.0) as u32, (y0 - m).max(0.0) as u32);
    let x1 = ((x1 + m) as u32).min(frame.width());
    let y1 = ((y1 + m) as u32).min(frame.height());
    let window = image::imageops::crop_imm(frame, x0, y0, x1 - x0, y1 - y0).to_image();
    match arbiter::vision::photo::find_card(&window) {
        arbiter::vision::photo::CardPicture::OnSurface(q) => {
            Some(q.map(|p| (p.0 + x0 as f32, p.1 + y0 as f32)))
        }
        _ => None,
    }
}
