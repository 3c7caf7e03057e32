//! Draws what the staged reader made of one frame: the outlines the finder
//! saw (yellow), each cell read (green: named, with its token; red: `??`
//! or left out) and the arms it saw (blue boxes); prints the cells.
//! `cargo run --release --example staged_show -- FRAME OUT.png [DECK_DIR]`
use arbiter_vision::pipeline::trace_frame;
use arbiter_vision::templates::DeckModel;
use image::Rgb;
use imageproc::drawing::{draw_hollow_polygon_mut, draw_hollow_rect_mut};
use imageproc::point::Point;
use imageproc::rect::Rect;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(input), Some(out)) = (args.first(), args.get(1)) else {
        return Err("usage: staged_show FRAME OUT.png [DECK_DIR]".into());
    };
    let frame = image::open(input)
        .map_err(|e| format!("{input}: {e}"))?
        .to_rgb8();
    let learned;
    let deck: &DeckModel = match args.get(2) {
        Some(dir) => {
            learned = DeckModel::learn_dir(std::path::Path::new(dir)).map_err(|e| e.to_string())?;
            &learned
        }
        None => DeckModel::bundled(),
    };
    let t = trace_frame(&frame, deck);
    let mut img = frame.clone();
    let poly = |q: &[(f32, f32); 4]| -> Vec<Point<f32>> {
        q.iter().map(|&(x, y)| Point::new(x, y)).collect()
    };
    for f in &t.finding.cards {
        draw_hollow_polygon_mut(&mut img, &poly(&f.quad.0), Rgb([255, 255, 0]));
    }
    for c in &t.identified {
        let colour = if c.token.is_some() {
            Rgb([0, 255, 0])
        } else {
            Rgb([255, 0, 0])
        };
        draw_hollow_polygon_mut(&mut img, &poly(&c.quad.scaled(0.96).0), colour);
        println!(
            "{:>8} {:>3} conf {:.2} whole {} foreign {:.2}",
            format!("{}", c.cell),
            c.token.map_or("--".to_string(), |t| t.to_string()),
            c.confidence,
            c.seen_whole,
            c.foreign
        );
    }
    for a in t.finding.intruders.iter().map(|i| i.bbox) {
        draw_hollow_rect_mut(
            &mut img,
            Rect::at(a.0 as i32, a.1 as i32)
                .of_size((a.2 - a.0).max(1.0) as u32, (a.3 - a.1).max(1.0) as u32),
            Rgb([0, 128, 255]),
        );
    }
    println!(
        "busy {} model {:?} times {:?}",
        t.recognition.busy, t.model, t.times
    );
    img.save(out).map_err(|e| format!("{out}: {e}"))?;
    Ok(())
}
