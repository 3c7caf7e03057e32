//! The old reader's card finder, its stages in order: the first pass over
//! the edge map and the colour regions ([`crate::cards`]), then, where it
//! missed cards, the passes that grow outlines from those it found
//! ([`crate::grow`]). Each stage uses only the ones before it: `grow`
//! builds on `cards`' outlines and readings, and this module runs both.

use image::RgbImage;

use crate::cards::*;
use crate::grow;
use crate::outline::{self, CLOSE_UP, Edges, Prefer, Source, TableModel};
use arbiter_core::table::Token;

/// Finds the cards on the felt and reads each one by its corner code.
pub fn detect(frame: &RgbImage) -> Vec<Detected> {
    detect_with(frame, &CornerCode)
}

/// Finds the cards on the table and reads each one with `id`.
pub fn detect_with(frame: &RgbImage, id: &dyn Identify) -> Vec<Detected> {
    find(frame, id).cards
}

/// What the card finder saw in one frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Finding {
    /// The cards, read with the [`Identify`] given (none under a hand).
    pub cards: Vec<Detected>,
    /// A hand, an arm or a sleeve reaches over the table.
    pub hand: bool,
}

/// Finds the cards on the table and reads each one with `id`, and tells
/// whether a hand is over the table.
pub fn find(frame: &RgbImage, id: &dyn Identify) -> Finding {
    let (w, h) = frame.dimensions();
    if w < 8 || h < 8 {
        return Finding::default();
    }
    let (w, h) = (w as usize, h as usize);
    let felt = FeltClasses::new(frame);
    let edges = Edges::new(frame);
    // A plain cloth: its texture sets no edge threshold above the noise
    // floor (a checked cloth's squares do, however green). Nor is a cloth
    // of large green and white checks or stripes felt, though most of it
    // is green and its squares too large to raise the threshold: its
    // white squares reach the frame's sides (a hand or a sleeve covers a
    // few hundredths of the frame; a green gingham's white checks four
    // tenths), and would merge with the cards they touch.
    let on_felt = felt.felt * 2 > w * h && edges.plain() && felt.cloth_reaching() < CLOTH_REACHING;
    // Green felt keeps the path it was tuned on (pixel classes by hue,
    // hands by skin colour) until the general path matches it there; every
    // other table goes the general way, which assumes no colour.
    let mut table: Option<TableModel> = None;
    // The table's largest region's own colours, unblurred (for hands).
    let mut region_table: Option<TableModel> = None;
    let (blobs, thin_blobs, objects, edges) = if on_felt {
        (felt.blobs(), Vec::new(), Vec::new(), None)
    } else {
        let regions = outline::regions(&edges);
        let mut model = TableModel::learn(&edges, &regions.objects);
        // No region is the table (plank seams and grain cut it up), or its
        // colours spread far (checks, stripes): the table is learned from
        // the frame blurred, as little as makes it one colour, up to a
        // quarter of the smallest card.
        if model.as_ref().is_none_or(|m| m.loose()) {
            // In the edge map's grid, whose colours are the frame's means.
            let grid = edges.image();
            let most = (MIN_SHORT * w as f32 / (4 * edges.scale) as f32).round() as usize;
            let mut r = 1;
            while r <= most {
                let (fw, fh) = (frame.width(), frame.height());
                if let Some(b) = TableModel::learn_blurred(&grid, edges.scale, r, fw, fh) {
                    region_table = model.replace(b);
                    break;
                }
                r *= 2;
            }
        }
        let mut blobs = model.as_ref().map(|t| t.blobs(frame)).unwrap_or_default();
        blobs.extend(regions.blobs);
        // On a plain cloth a card's lit side may be fainter than the
        // threshold (white on white): a second, finer look finds its
        // outline closed. Only the candidates are taken from it.
        if edges.plain() {
            let fine = edges.with_threshold(FINE_THRESHOLD);
            blobs.extend(outline::regions(&fine).blobs);
        }
        // The edges thinned to their crests and traced: touching cards
        // part along their seam (see [`Edges::thinned`]). Their candidates
        // are read and count for the typical card, but not for hands (a
        // hand's fingers are regions of it too).
        let mut thin = outline::regions(&edges.thinned()).blobs;
        // A patterned cloth (a table learned only once blurred) cuts every
        // region of the edge map; cards far lighter or darker than the
        // cloth part from it by lightness alone, and count as the thin
        // map's do. (On every table: 0.1% fewer right over the varied
        // sets, the plain tables losing what the patterned gain.)
        if model.as_ref().is_none_or(|m| m.blurred().is_some()) {
            thin.extend(lightness_blobs(frame));
        }
        table = model;
        (blobs, thin, regions.objects, Some(edges))
    };
    let max_area = w * h / 5;
    let mut first: Vec<Candidate> = Vec::new();
    // Blobs of the colour mask holding many touching cards: their outlines.
    let mut blocks: Vec<Vec<(f32, f32)>> = Vec::new();
    let tagged = blobs.into_iter().map(|b| (b, false));
    for (blob, thin) in tagged.chain(thin_blobs.into_iter().map(|b| (b, true))) {
        // Larger than a layout's card: a card held close to the camera
        // (up to half the frame wide), clear of the frame's sides, or
        // many touching cards. The edge map parts touching cards along
        // their seams; the colour mask holds them as one blob, a block.
        let close_up = blob.area > max_area
            && blob.area as f32 <= CLOSE_UP * (w * h) as f32
            && !blob.at_border
            && blob.source != Source::Colour;
        if blob.area > max_area && !close_up {
            if blob.source == Source::Colour {
                let boundary = Patch::new(&blob.runs).boundary();
                blocks.push(boundary.iter().map(|e| e.p).collect());
            }
            continue;
        }
        if blob.area < MIN_AREA {
            continue;
        }
        let patch = Patch::new(&blob.runs);
        let boundary = patch.boundary();
        let Some(quad) = fit(&boundary, None) else {
            continue;
        };
        let fill = blob.area as f32 / quad.area.max(1.0);
        // A near-card-shaped blob's outline is moved onto the card's edge
        // now, so that the typical card below is the card, not its
        // interior or its shadow. A region is eroded by the edge band all
        // round, which makes it look longer than the card.
        let near = (1.05..2.3).contains(&quad.aspect) && (0.85..1.12).contains(&fill);
        // Too large for a layout's card, and no card held close.
        if close_up && !near {
            continue;
        }
        let (quad, shaped) = if near && !blob.at_border {
            let q = match table.as_ref().and_then(|t| t.blurred()) {
                // The blur moved the blob's outline off the card's edge:
                // the blurred edge's steepest point is still on it.
                Some((blurred, r)) if blob.source == Source::Colour => {
                    match outline::snap(blurred, &quad.corners, r + 2.0, r + 2.0, Prefer::Nearest) {
                        Some(c) => quad_of(portrait(c)),
                        None => quad.clone(),
                    }
                }
                _ => snapped(frame, &quad, blob.source),
            };
            let shaped = card_shaped(q.aspect, fill.min(1.0));
            (q, shaped)
        } else {
            (quad, false)
        };
        first.push(Candidate {
            patch,
            boundary,
            quad,
            fill,
            shaped,
            source: blob.source,
            thin,
        });
    }
    // A region is one card (a hole may be several touching): the regions
    // say what a card is when there are enough of them.
    // A picture printed on a card (a coloured square) is a blob of the
    // colour mask, and card-shaped when tilted; lying inside a card-shaped
    // region at least half again its size, it is no card. Nor is a blob
    // too small to be a card.
    let least_short = if on_felt { 0.0 } else { MIN_SHORT * w as f32 };
    let no_card: Vec<bool> = first
        .iter()
        .map(|f| {
            f.quad.short < least_short
                || f.source == Source::Colour
                    && first.iter().any(|g| {
                        g.source == Source::Region
                            && !g.thin
                            && g.shaped
                            && g.quad.area > 1.5 * f.quad.area
                            && f.quad
                                .corners
                                .iter()
                                .all(|&c| signed_distance(&g.quad.corners, c) < 2.0)
                    })
        })
        .collect();
    let count = |src: Source, thin: bool| {
        first
            .iter()
            .zip(&no_card)
            .filter(|(f, no)| f.shaped && !**no && (thin || !f.thin) && f.source == src)
            .count()
    };
    // The typical card, from the colour mask's card-shaped blobs (when
    // `colour`) or the edge map's (the thinned one's too, when `thin`);
    // of the surest source only, when `trust`.
    let typical_of = |colour: bool, thin: bool, trust: bool| {
        let trusted = if !trust {
            None
        } else if colour && count(Source::Colour, thin) >= 1 {
            Some(Source::Colour)
        } else if count(Source::Region, thin) >= 3 {
            Some(Source::Region)
        } else {
            None
        };
        let typical = |(f, no): &(&Candidate, &bool)| {
            f.shaped
                && !**no
                && (thin || !f.thin)
                && (colour || f.source != Source::Colour)
                && trusted.is_none_or(|t| f.source == t)
        };
        first
            .iter()
            .zip(&no_card)
            .filter(typical)
            .map(|(f, _)| (&f.quad, f.source))
            .collect::<Vec<_>>()
    };
    let (typical_area, typical_short) = typical_size(
        frame,
        id,
        &typical_of(true, true, true),
        &typical_of(true, true, false),
    );
    // Hands are judged as on the unblurred frame: a blurred cloth's colour
    // is a mean of its pattern or grain (pale wood's is a pale hand's), and
    // its blobs hold a hand's pieces as well as cards. Only the table's own
    // region's colours spare a piece of table.
    let blurred = table.as_ref().is_some_and(|t| t.blurred().is_some());
    let (hand_area, hand_short) = median_size(&typical_of(!blurred, false, true));
    let cards: Vec<&Quad> = first
        .iter()
        .filter(|f| f.shaped && !f.thin && !(blurred && f.source == Source::Colour))
        .map(|f| &f.quad)
        .collect();
    let hands = match &edges {
        Some(edges) => Hands::find(
            edges,
            &objects,
            table
                .as_ref()
                .filter(|t| t.blurred().is_none())
                .or(region_table.as_ref()),
            &cards,
            hand_area,
            hand_short,
        ),
        None => felt.hands(),
    };

    let mut out: Vec<(Detected, Source)> = Vec::new();
    // The surest outlines first: a card already read from one is not read
    // again from another (reading is most of the cost).
    first.sort_by_key(|f| match f.source {
        Source::Colour => 0,
        Source::Hole => 1,
        Source::Region => 2,
    });
    for Candidate {
        patch,
        boundary,
        quad,
        fill,
        shaped,
        source,
        thin: _,
    } in first
    {
        let oversized = typical_area.is_some_and(|t| quad.area > 1.5 * t);
        // A region found inside a card (a back's pattern, a glyph) and
        // snapped outward falls short of the card.
        let least = if source == Source::Region { 0.7 } else { 0.5 };
        let undersized =
            typical_area.is_some_and(|t| quad.area < least * t) || quad.short < least_short;
        if shaped && !oversized && !undersized {
            if read_at(&out, &quad) {
                continue;
            }
            let mut d = judge(frame, &hands, &quad, id, source);
            // A hole is the card with its edge band, unless the card's
            // margin is as pale as the table: then it is what lies inside
            // the card's printed border, and the card's edge is outside.
            if d.token.is_none()
                && source == Source::Hole
                && let Some(wider) = outward_snap(frame, &quad)
            {
                let again = judge(frame, &hands, &wider, id, source);
                if again.token.is_some() {
                    d = again;
                }
            }
            // A throne pair seen steeply can look like one long card; only
            // one that fails to read is worth a second look.
            let big = typical_area.is_none_or(|t| quad.area > 1.2 * t);
            // Pairs are read from their own pixels' outline only.
            let pair = (d.token.is_none() && d.confidence > 0.1 && big && source == Source::Colour)
                .then(|| throne_pair(frame, &hands, &boundary, &quad, typical_short, id))
                .flatten();
            // Two cards touching along their long sides make one outline
            // of a card's own shape (a card is near √2 as long as wide),
            // twice its size, and where most cards lie in such pairs the
            // pair is the typical card: read as two when each half reads.
            if pair.is_none() && d.token.is_none() {
                let two = halves(&quad.corners).map(|half| {
                    let half = snapped(frame, &quad_of(portrait(half)), source);
                    judge(frame, &hands, &half, id, source)
                });
                if two.iter().all(|h| h.token.is_some()) {
                    out.extend(two.map(|h| (h, source)));
                    continue;
                }
            }
            out.push((pair.unwrap_or(d), source));
            continue;
        }
        // Touching cards are split from their own pixels only: a hole
        // holds several cards with their edge bands merged.
        if undersized || source != Source::Colour {
            continue;
        }
        // With no typical card (every card touches another), a large blob
        // of no card's shape is a block.
        let least_card = least_short * least_short * CARD_ASPECT;
        let block = match typical_area {
            Some(t) => quad.area > BLOCK * t,
            None => !shaped && quad.area > UNSIZED_BLOCK * least_card,
        };
        if block {
            blocks.push(boundary.iter().map(|e| e.p).collect());
        }
        let parts = split(&patch, &boundary, typical_area, typical_short, (w, h));
        // A throne pair covers one and a half cards.
        let pair_sized = typical_area.is_some_and(|t| (1.2 * t..2.0 * t).contains(&quad.area));
        if parts.is_empty()
            && fill > 0.85
            && (on_felt || pair_sized)
            && let Some(d) = throne_pair(frame, &hands, &boundary, &quad, typical_short, id)
        {
            out.push((d, source));
            continue;
        }
        if parts.is_empty() {
            // Seen, but not as a card: no token. A blob far from any card's
            // shape is not reported at all.
            let loose = (1.0..2.2).contains(&quad.aspect) && (0.75..1.2).contains(&fill);
            // Oversized, it may be cards merged (two side by side along
            // their long sides are 2.8 times as long as wide); far longer,
            // it is a stripe of the cloth.
            let merged = oversized && quad.aspect <= MERGED_ASPECT;
            // Twice a card: two cards side by side, each read (or reported
            // not read) at its own cell rather than one at the seam.
            let two = typical_area.is_some_and(|t| (1.6 * t..2.5 * t).contains(&quad.area));
            if merged && two && fill > 0.85 {
                for half in halves(&quad.corners) {
                    let half = snapped(frame, &quad_of(portrait(half)), source);
                    out.push((judge(frame, &hands, &half, id, source), source));
                }
                continue;
            }
            if merged || loose {
                out.push((
                    Detected {
                        corners: quad.corners,
                        centre: quad.centre,
                        token: None,
                        confidence: 0.2,
                    },
                    source,
                ));
            }
            continue;
        }
        for part in &parts {
            let part = snapped(frame, part, source);
            out.push((judge(frame, &hands, &part, id, source), source));
        }
    }
    // A frame where hardly a face was read: on a patterned cloth every
    // card's outline may hold the pattern's pieces that touch it. Opened,
    // the lightness blobs part them (a pass too costly for every frame).
    let faces = out
        .iter()
        .filter(|(d, _)| matches!(d.token, Some(Token::Up(_))))
        .count();
    if !on_felt && faces < LOST_BELOW {
        read_opened(frame, &hands, table.as_ref(), id, least_short, &mut out);
    }
    let hand = if on_felt {
        felt.hand_present()
    } else {
        hands.any()
    };
    // An outline from the edge map around a patch of the table's own
    // colour is the gap between cards (the cells of a grid make
    // card-sized gaps), however plain-back-like it reads. Not a card read
    // as a back with a design, which no patch of table matches; nor one
    // read as any back on a patterned cloth (a table learned only once
    // blurred), where a gap shows the pattern, which reads as no back,
    // and where the blurred frame mixes a card's colours with the
    // cloth's. (The printed deck's navy backs on a blue gingham were
    // dropped so: the table's colours were its navy, blue and white
    // checks, three quarters and more of each back's and each face's.)
    if let Some(t) = &table {
        let back_kept = id.back_has_design() || t.blurred().is_some();
        out.retain(|(d, source)| {
            *source == Source::Colour
                || matches!(d.token, Some(Token::Up(_)) | Some(Token::Pair(..)))
                || back_kept && d.token == Some(Token::Down)
                || t.share_in(frame, &d.corners) < TABLE_GAP
        });
    }
    let mut cards = dedupe(out);
    if !on_felt {
        // On a plain table an outline the edge map found is a card or a
        // gap between cards; on a patterned cloth it may be a check of it,
        // which a forgiving deck reads as a face: there only outlines the
        // faces vouch for are read again.
        if table.is_some() {
            grow::reread(frame, &hands, &mut cards, id);
        }
        cards = vouched(cards, w, id.back_has_design());
        if table.is_none() {
            grow::reread(frame, &hands, &mut cards, id);
        }
        // The card's size as the first block's seed measured it serves
        // the next blocks.
        let mut size = typical_area.zip(typical_short).map(|(a, s)| (s, a / s));
        let effort = grow::Effort::new();
        for block in &blocks {
            size =
                grow::rim_seeds(frame, &hands, block, size, least_short, id, &mut cards).or(size);
        }
        grow::grow(frame, &hands, table.as_ref(), &mut cards, id, &effort);
        // A frame a hand reaches over is not judged: its layout is not
        // completed (each cell costs reads, and a layout half hidden fits
        // its lattice loosely).
        if !hand {
            let no_bare = |_: &[(f32, f32); 4]| false;
            grow::complete(
                frame,
                &hands,
                table.as_ref(),
                &mut cards,
                id,
                &no_bare,
                &effort,
            );
            // Each card found is a ruler for its own neighbours in turn,
            // and the cards read since measure the layout's pitch better
            // (seeding from the new cards alone: 0.3% fewer right).
            grow::grow(frame, &hands, table.as_ref(), &mut cards, id, &effort);
        }
        effort.drop_plain_faint(frame, &mut cards);
    } else if !hand {
        // On felt the finder's blobs are the cards, but a card the colour
        // mask merged with another, or lost in glare, is still found
        // through the lattice. A cell of bare felt is not tried.
        let bare = |q: &[(f32, f32); 4]| felt.bare(q) && grow::edged(frame, q).is_none();
        let effort = grow::Effort::new();
        grow::complete(frame, &hands, None, &mut cards, id, &bare, &effort);
        effort.drop_plain_faint(frame, &mut cards);
    }
    if let Some(back) = id.back_lightness() {
        unwash_backs(frame, &mut cards, back);
    }
    Finding {
        cards: cards.into_iter().map(|c| c.0).collect(),
        hand,
    }
}

/// Looks for the cards again in the opened lightness blobs
/// ([`opened_blobs`]), and adds those read to `out`: a pass too costly
/// for every frame, made when hardly a face was read.
fn read_opened(
    frame: &RgbImage,
    hands: &Hands,
    table: Option<&TableModel>,
    id: &dyn Identify,
    least_short: f32,
    out: &mut Vec<(Detected, Source)>,
) {
    let mut near: Vec<Quad> = Vec::new();
    // One card is found at several openings and thresholds, nearly alike:
    // it is read once.
    let mut seen: Vec<Quad> = Vec::new();
    for blob in opened_blobs(frame) {
        if blob.at_border {
            continue;
        }
        let Some(quad) = fit(&Patch::new(&blob.runs).boundary(), None) else {
            continue;
        };
        let fill = (blob.area as f32 / quad.area.max(1.0)).min(1.0);
        if !card_shaped(quad.aspect, fill) || quad.short < least_short || read_at(out, &quad) {
            continue;
        }
        let alike = |q: &Quad| {
            dist(q.centre, quad.centre) < 0.1 * quad.short
                && q.area.max(quad.area) < 1.1 * q.area.min(quad.area)
        };
        if seen.iter().any(alike) {
            continue;
        }
        seen.push(quad.clone());
        // The opening rounded the card's corners; the snap onto its
        // edge may catch the cloth's pattern instead: both are read.
        let snap = snapped(frame, &quad, Source::Region);
        let d = [&quad, &snap]
            .into_iter()
            .map(|q| judge(frame, hands, q, id, Source::Region))
            .max_by(|a, b| {
                (a.token.is_some(), a.confidence)
                    .partial_cmp(&(b.token.is_some(), b.confidence))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
            .expect("two reads");
        if d.token.is_some() {
            replace_unread(out, d);
        } else if d.confidence >= ROUGH_NEAR {
            near.push(quad);
        }
    }
    // The faces read give the card's size; a blob that came near to
    // reading is read again at that size, as a neighbour is.
    let faces: Vec<&Detected> = out
        .iter()
        .map(|(d, _)| d)
        .filter(|d| matches!(d.token, Some(Token::Up(_))))
        .collect();
    let short = median(
        faces
            .iter()
            .map(|d| dist(d.corners[0], d.corners[1]))
            .collect(),
    );
    let long = median(
        faces
            .iter()
            .map(|d| dist(d.corners[0], d.corners[3]))
            .collect(),
    );
    let Some(size) = short.zip(long) else {
        return;
    };
    let effort = grow::Effort::new();
    let seen = grow::Seen::of(frame, table, out, id);
    let mut tried: Vec<(f32, f32)> = Vec::new();
    for quad in near {
        // Read at the faces' size, one card's outlines are one.
        if read_at(out, &quad)
            || tried
                .iter()
                .any(|&c| dist(c, quad.centre) < 0.35 * quad.short)
        {
            continue;
        }
        tried.push(quad.centre);
        if let Some(d) = grow::read_rough(frame, hands, table, id, &quad, size, seen, &effort) {
            replace_unread(out, d);
        }
    }
}
