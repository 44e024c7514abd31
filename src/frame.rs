//! A 128 × 64 one-bit picture, laid out as the SSD1306 keeps its display
//! RAM: 8 pages of 8 rows, a byte per column and page, bit 0 the page's top
//! row. The face draws into a [`Frame`] with embedded-graphics; a driver
//! sends a page's bytes as they are, and finds what to send by comparing two
//! frames page by page ([`Frame::changed_runs`]).
//!
//! Plain data: nothing of the clock, the referee or the hardware.

use core::ops::Range;

use embedded_graphics::pixelcolor::BinaryColor;
use embedded_graphics::prelude::*;
use embedded_graphics::primitives::Rectangle;

/// Columns of a frame.
pub const WIDTH: usize = 128;
/// Rows of a frame.
pub const HEIGHT: usize = 64;
/// Pages of eight rows.
pub const PAGES: usize = HEIGHT / 8;

/// A frame in the SSD1306's page layout: `page(p)[x]` holds rows `8p` to
/// `8p + 7` of column `x`, the lowest bit on top.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Frame {
    pages: [[u8; WIDTH]; PAGES],
}

impl Default for Frame {
    fn default() -> Self {
        Frame::new()
    }
}

impl core::fmt::Debug for Frame {
    /// A frame as text, `#` for a lit pixel: readable in a failed assertion.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(f, "Frame")?;
        for y in 0..HEIGHT as i32 {
            let row: String = (0..WIDTH as i32)
                .map(|x| if self.pixel(x, y) { '#' } else { '.' })
                .collect();
            writeln!(f, "{row}")?;
        }
        Ok(())
    }
}

impl Frame {
    /// A dark frame.
    pub const fn new() -> Frame {
        Frame {
            pages: [[0; WIDTH]; PAGES],
        }
    }

    /// Whether (`x`, `y`) is lit, `(0, 0)` top-left; false outside the frame.
    pub fn pixel(&self, x: i32, y: i32) -> bool {
        match index(x, y) {
            Some((page, column, bit)) => self.pages[page][column] & bit != 0,
            None => false,
        }
    }

    /// Lights (`x`, `y`) or darkens it; nothing outside the frame.
    pub fn set_pixel(&mut self, x: i32, y: i32, on: bool) {
        if let Some((page, column, bit)) = index(x, y) {
            if on {
                self.pages[page][column] |= bit;
            } else {
                self.pages[page][column] &= !bit;
            }
        }
    }

    /// Page `page`'s column bytes, as the controller stores them. Panics if
    /// `page` is not below [`PAGES`].
    pub fn page(&self, page: usize) -> &[u8; WIDTH] {
        &self.pages[page]
    }

    /// The columns of page `page` whose bytes differ between `self` and
    /// `other`, as maximal runs, left to right.
    pub fn changed_runs(&self, other: &Frame, page: usize) -> Vec<Range<usize>> {
        runs((0..WIDTH).map(|x| self.pages[page][x] != other.pages[page][x]))
    }

    /// Copies `columns` of page `page` from `from`: what a driver has just
    /// sent to its panel. Panics if they are not in the frame.
    pub fn copy_columns(&mut self, from: &Frame, page: usize, columns: Range<usize>) {
        self.pages[page][columns.clone()].copy_from_slice(&from.pages[page][columns]);
    }

    /// Whether any byte of page `page` differs between `self` and `other`.
    #[cfg(test)]
    pub fn page_differs(&self, other: &Frame, page: usize) -> bool {
        self.pages[page] != other.pages[page]
    }
}

/// The maximal runs of `true` in `flags`, as index ranges.
pub fn runs(flags: impl IntoIterator<Item = bool>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    let mut end = 0;
    for (i, flag) in flags.into_iter().enumerate() {
        end = i + 1;
        match (flag, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..end);
    }
    out
}

/// The pages a pixel rectangle touches, clipped to the frame.
pub fn pages_of(area: &Rectangle) -> Range<usize> {
    let (top, bottom) = rows_of(area);
    if top >= bottom {
        return 0..0;
    }
    top / 8..(bottom - 1) / 8 + 1
}

/// The columns a pixel rectangle covers, clipped to the frame.
pub fn columns_of(area: &Rectangle) -> Range<usize> {
    let left = area.top_left.x.clamp(0, WIDTH as i32) as usize;
    let right = (area.top_left.x as i64 + area.size.width as i64).clamp(0, WIDTH as i64) as usize;
    left..right.max(left)
}

fn rows_of(area: &Rectangle) -> (usize, usize) {
    let top = area.top_left.y.clamp(0, HEIGHT as i32) as usize;
    let bottom =
        (area.top_left.y as i64 + area.size.height as i64).clamp(0, HEIGHT as i64) as usize;
    (top, bottom.max(top))
}

/// Page, column and bit mask of (`x`, `y`), if it is in the frame.
fn index(x: i32, y: i32) -> Option<(usize, usize, u8)> {
    if (0..WIDTH as i32).contains(&x) && (0..HEIGHT as i32).contains(&y) {
        Some((y as usize / 8, x as usize, 1 << (y % 8)))
    } else {
        None
    }
}

impl OriginDimensions for Frame {
    fn size(&self) -> Size {
        Size::new(WIDTH as u32, HEIGHT as u32)
    }
}

impl DrawTarget for Frame {
    type Color = BinaryColor;
    type Error = core::convert::Infallible;

    fn draw_iter<I: IntoIterator<Item = Pixel<BinaryColor>>>(
        &mut self,
        pixels: I,
    ) -> Result<(), Self::Error> {
        for Pixel(p, c) in pixels {
            self.set_pixel(p.x, p.y, c.is_on());
        }
        Ok(())
    }

    fn clear(&mut self, color: BinaryColor) -> Result<(), Self::Error> {
        let byte = if color.is_on() { 0xFF } else { 0x00 };
        self.pages = [[byte; WIDTH]; PAGES];
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use embedded_graphics::primitives::PrimitiveStyle;

    #[test]
    fn pixels_land_in_the_controllers_page_layout() {
        let mut f = Frame::new();
        f.set_pixel(0, 0, true);
        f.set_pixel(5, 9, true);
        f.set_pixel(127, 63, true);
        f.set_pixel(128, 0, true); // outside: ignored
        f.set_pixel(-1, 3, true);
        assert_eq!(f.page(0)[0], 0x01);
        assert_eq!(f.page(1)[5], 0x02);
        assert_eq!(f.page(7)[127], 0x80);
        assert!(f.pixel(5, 9) && !f.pixel(5, 8) && !f.pixel(200, 9));
        f.set_pixel(5, 9, false);
        assert_eq!(f.page(1)[5], 0);
    }

    #[test]
    fn changed_runs_are_maximal_and_per_page() {
        let mut a = Frame::new();
        let b = Frame::new();
        Rectangle::new(Point::new(10, 36), Size::new(16, 4))
            .into_styled(PrimitiveStyle::with_fill(BinaryColor::On))
            .draw(&mut a)
            .unwrap();
        a.set_pixel(127, 39, true);
        assert_eq!(a.changed_runs(&b, 4), [10..26, 127..128]);
        assert!(a.changed_runs(&b, 3).is_empty());
        assert!(a.page_differs(&b, 4) && !a.page_differs(&b, 5));
        assert_eq!(runs([true, true, false, true]), [0..2, 3..4]);
        assert!(runs([false; 3]).is_empty());
    }

    #[test]
    fn rectangles_map_to_pages_and_columns() {
        let r = Rectangle::new(Point::new(24, 36), Size::new(16, 4));
        assert_eq!((pages_of(&r), columns_of(&r)), (4..5, 24..40));
        let r = Rectangle::new(Point::new(-5, 7), Size::new(200, 2));
        assert_eq!((pages_of(&r), columns_of(&r)), (0..2, 0..128));
        let empty = Rectangle::new(Point::new(3, 70), Size::new(4, 4));
        assert!(pages_of(&empty).is_empty());
    }
}
