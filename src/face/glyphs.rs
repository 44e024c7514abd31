//! Text drawn from each glyph's lit pixels, found once per font and
//! character.
//!
//! embedded-graphics draws a monospaced glyph by walking every pixel of its
//! cell through a chain of iterators, lit or not: a few thousand
//! instructions for one 10 × 20 digit, and the face redraws a running
//! clock's time every second of a game. Remembering which pixels of each
//! glyph are lit, and drawing only those, gives the same picture for a
//! fraction of the work. The font's own renderer finds the pixels, once, so
//! the glyphs and their layout stay embedded-graphics'.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use embedded_graphics::mono_font::{MonoFont, MonoTextStyle};
use embedded_graphics::pixelcolor::BinaryColor;
use embedded_graphics::prelude::*;
use embedded_graphics::text::{Baseline, Text, TextStyle};

/// A glyph's lit pixels, relative to its cell's top-left.
type LitPixels = Rc<[Point]>;

thread_local! {
    /// Lit pixels by (font, character). A face uses a dozen fonts and a
    /// hundred characters at most.
    static LIT: RefCell<HashMap<(usize, char), LitPixels, BuildHasherDefault<GlyphKeyHasher>>> =
        RefCell::new(HashMap::default());
}

/// A multiplicative hash of a glyph's key: every character of every redraw
/// is looked up, and the default SipHash cost more than drawing most
/// glyphs (2.6 % of the daemon's instructions over a game hour). The keys
/// are the face's own, not an adversary's: no flooding to resist.
#[derive(Default)]
struct GlyphKeyHasher(u64);

impl GlyphKeyHasher {
    fn add(&mut self, word: u64) {
        // FxHash's step (rustc's own table hash): the rotation brings the
        // font address's high bits down among the character's, and the
        // multiply spreads them; every key is compared whole on a match.
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for GlyphKeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.add(u64::from(byte));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

/// Draws `s` lit on what is there, exactly as
/// `Text::with_text_style(s, at, MonoTextStyle::new(font, On), style)`
/// would: one line, no background.
pub(super) fn draw_lit<D: DrawTarget<Color = BinaryColor>>(
    target: &mut D,
    s: &str,
    at: Point,
    font: &'static MonoFont<'static>,
    style: TextStyle,
) -> Result<(), D::Error> {
    debug_assert!(!s.contains('\n'), "one line only");
    let character_style = MonoTextStyle::new(font, BinaryColor::On);
    let origin = Text::with_text_style(s, at, character_style, style)
        .bounding_box()
        .top_left;
    let advance = (font.character_size.width + font.character_spacing) as i32;
    for (i, c) in s.chars().enumerate() {
        let cell = origin + Point::new(i as i32 * advance, 0);
        let pixels = lit(font, c);
        target.draw_iter(pixels.iter().map(|p| Pixel(*p + cell, BinaryColor::On)))?;
    }
    Ok(())
}

/// The lit pixels of `c` in `font`, from the cache or found now.
fn lit(font: &'static MonoFont<'static>, c: char) -> Rc<[Point]> {
    // Two fonts at one address would be one font: the key is its address.
    let key = (std::ptr::from_ref(font) as usize, c);
    LIT.with(|cache| {
        if let Some(pixels) = cache.borrow().get(&key) {
            return Rc::clone(pixels);
        }
        let mut found = Found(Vec::new());
        let mut utf8 = [0; 4];
        let glyph = Text::with_baseline(
            c.encode_utf8(&mut utf8),
            Point::zero(),
            MonoTextStyle::new(font, BinaryColor::On),
            Baseline::Top,
        );
        let Ok(_) = glyph.draw(&mut found);
        let pixels: Rc<[Point]> = found.0.into();
        cache.borrow_mut().insert(key, Rc::clone(&pixels));
        pixels
    })
}

/// A draw target that keeps the positions of the lit pixels drawn on it.
struct Found(Vec<Point>);

impl OriginDimensions for Found {
    fn size(&self) -> Size {
        // Unbounded in practice: a glyph is drawn at the origin.
        Size::new(u16::MAX.into(), u16::MAX.into())
    }
}

impl DrawTarget for Found {
    type Color = BinaryColor;
    type Error = core::convert::Infallible;

    fn draw_iter<I: IntoIterator<Item = Pixel<BinaryColor>>>(
        &mut self,
        pixels: I,
    ) -> Result<(), Self::Error> {
        self.0
            .extend(pixels.into_iter().filter(|p| p.1.is_on()).map(|p| p.0));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::Frame;
    use embedded_graphics::mono_font::{ascii, iso_8859_1};
    use embedded_graphics::text::{Alignment, TextStyleBuilder};

    #[test]
    fn lit_glyphs_draw_what_the_fonts_renderer_draws() {
        let fonts: [&'static MonoFont<'static>; 9] = [
            &ascii::FONT_6X13_BOLD,
            &ascii::FONT_10X20,
            &ascii::FONT_9X18_BOLD,
            &ascii::FONT_8X13_BOLD,
            &ascii::FONT_7X13_BOLD,
            &ascii::FONT_6X10,
            &iso_8859_1::FONT_6X10,
            &iso_8859_1::FONT_5X8,
            &iso_8859_1::FONT_4X6,
        ];
        let texts = ["1:23:45", "0.9", "White ½? ~é", "Illegal: Ke2", "\u{2603}x"];
        for font in fonts {
            for s in texts {
                for alignment in [Alignment::Left, Alignment::Center, Alignment::Right] {
                    for baseline in [Baseline::Top, Baseline::Alphabetic, Baseline::Middle] {
                        let style = TextStyleBuilder::new()
                            .alignment(alignment)
                            .baseline(baseline)
                            .build();
                        let at = Point::new(64, 30);
                        let mut want = Frame::new();
                        let Ok(_) = Text::with_text_style(
                            s,
                            at,
                            MonoTextStyle::new(font, BinaryColor::On),
                            style,
                        )
                        .draw(&mut want);
                        let mut got = Frame::new();
                        let Ok(()) = draw_lit(&mut got, s, at, font, style);
                        assert!(
                            got == want,
                            "{s:?} {:?} {alignment:?} {baseline:?}",
                            font.character_size
                        );
                    }
                }
            }
        }
    }
}
