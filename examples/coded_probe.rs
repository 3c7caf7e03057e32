//! One frame of the varied sets shown in the coded deck, card by card:
//! each card of the truth with what the codes made of it (its token, or
//! `??` and why, or nothing), then the coded cards that match no card of
//! the truth, and the reading the recogniser placed on cells. Draws the
//! frame with the coded outlines (green named, magenta named with its
//! other code covered, orange `??`) and the
//! truth's cards no code found (red) to `$TMPDIR/coded-<set>-<index>.png`.
//! The coded reader's counterpart of `probe_frame`:
//! `cargo run --release --example coded_probe -- hands 2 1` (a frame of
//! `accuracy --unseen 1 --coded`; set `phone` is `--phone`'s).
use arbiter::vision::coded;
use arbiter::vision::recognise::Recogniser;
use arbiter_testkit::fixtures::FixtureDeck;
use arbiter_testkit::fixtures::tables::{factors, phone_set, render_frame, table_sets_seeded};
use image::Rgb;

#[path = "shared/draw.rs"]
mod draw;
use draw::{dist, draw};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: coded_probe SET INDEX [UNSEEN] (as `accuracy --coded` names a frame)";
    let (set, index, unseen) = match args.as_slice() {
        [set, index] => (set, index, "0"),
        [set, index, n] => (set, index, n.as_str()),
        _ => return Err(usage.into()),
    };
    let unseen: u64 = unseen
        .parse()
        .map_err(|_| format!("{unseen}: not a number"))?;
    let index: usize = index
        .parse()
        .map_err(|_| format!("{index}: not an index"))?;
    let mut sets = table_sets_seeded(unseen * 1_000_000);
    sets.push(phone_set(unseen));
    let frames = &sets
        .iter()
        .find(|s| s.name == set)
        .ok_or_else(|| format!("{set}: no such set"))?
        .frames;
    let mut f = frames
        .get(index)
        .ok_or_else(|| format!("{set} has {} frames", frames.len()))?
        .clone();
    f.deck = FixtureDeck::Coded;
    let scene = render_frame(&f);
    println!(
        "{}  (truth busy: {})",
        factors(&f, &scene).line(),
        scene.busy
    );
    let found = coded::cards(&scene.image);
    let mut picture = scene.image.clone();
    let mut matched = vec![false; found.len()];
    for t in &scene.truth {
        let short = dist(t.corners_px[0], t.corners_px[1]);
        let near = found
            .iter()
            .enumerate()
            .filter(|(_, c)| dist(c.centre, t.centre_px) < 0.3 * short)
            .min_by(|(_, a), (_, b)| {
                dist(a.centre, t.centre_px).total_cmp(&dist(b.centre, t.centre_px))
            });
        let seen = match near {
            Some((i, c)) => {
                matched[i] = true;
                match (&c.token, &c.doubt) {
                    (Some(tok), _) if c.covered => format!(
                        "{tok} ({} codes, the other covered) at ({:.0}, {:.0})",
                        c.codes, c.centre.0, c.centre.1
                    ),
                    (Some(tok), _) => format!("{tok} ({} codes)", c.codes),
                    (None, Some(d)) => format!("?? {d}"),
                    (None, None) => "??".into(),
                }
            }
            None => {
                draw(&mut picture, &t.corners_px, Rgb([255, 0, 0]));
                "not found".into()
            }
        };
        println!(
            "{} {:<3} visible {:.2} clipped {:.2}: {seen}",
            t.cell, t.token, t.visible, t.glare_clipped
        );
    }
    for (c, m) in found.iter().zip(&matched) {
        let colour = if c.covered {
            Rgb([255, 0, 255])
        } else if c.token.is_some() {
            Rgb([0, 220, 0])
        } else {
            Rgb([255, 140, 0])
        };
        draw(&mut picture, &c.corners, colour);
        if !m {
            println!(
                "no card of the truth at ({:.0}, {:.0}): {:?} {:?} ({} codes)",
                c.centre.0, c.centre.1, c.token, c.doubt, c.codes
            );
        }
    }
    let rec = Recogniser::coded().recognise(&scene.image);
    println!("busy {}; read:", rec.busy);
    for (cell, tok) in rec.table().iter() {
        print!(" {cell} {tok}");
    }
    println!();
    let out = std::env::temp_dir().join(format!("coded-{set}-{index}.png"));
    picture
        .save(&out)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    println!("drawn to {}", out.display());
    Ok(())
}
