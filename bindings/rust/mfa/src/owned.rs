//! `c_owned!`: a Rust owner for a struct libmfa allocated, freed by its
//! free function on drop, and a `view!` for structs that live inside one.

/// An owner of a libmfa allocation of `$raw`, freed with `$free` on drop.
/// libmfa's results are plain data nobody writes to, so owners are `Send`
/// and `Sync` (mfa_types.h: "safe to share between threads as long as
/// nobody writes to it").
macro_rules! c_owned {
    ($(#[$meta:meta])* $name:ident, $raw:ty, $free:path) => {
        $(#[$meta])*
        pub struct $name {
            raw: std::ptr::NonNull<$raw>,
        }

        unsafe impl Send for $name {}
        unsafe impl Sync for $name {}

        impl $name {
            /// Takes ownership of what libmfa returned (None for NULL).
            #[allow(dead_code)]
            pub(crate) unsafe fn from_raw(pointer: *mut $raw) -> Option<$name> {
                std::ptr::NonNull::new(pointer).map(|raw| $name { raw })
            }

            #[allow(dead_code)]
            pub(crate) fn raw(&self) -> &$raw {
                unsafe { self.raw.as_ref() }
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                unsafe { $free(self.raw.as_ptr() as *mut _) };
            }
        }
    };
}

/// A borrowed view of a C struct `$raw` that lives inside an owner: only
/// ever seen as `&$name`, for as long as its owner lives.
macro_rules! view {
    ($(#[$meta:meta])* $name:ident, $raw:ty) => {
        $(#[$meta])*
        #[repr(transparent)]
        pub struct $name($raw);

        unsafe impl Send for $name {}
        unsafe impl Sync for $name {}

        impl $name {
            /// The view of a C struct.
            #[allow(dead_code)]
            pub(crate) fn of(raw: &$raw) -> &$name {
                // repr(transparent): the same layout.
                unsafe { &*(raw as *const $raw as *const $name) }
            }

            /// The views of `count` C structs at `items` (empty for NULL).
            ///
            /// # Safety
            /// `items` is NULL or points to `count` structs that outlive `'a`.
            #[allow(dead_code)]
            pub(crate) unsafe fn slice<'a>(items: *const $raw, count: usize) -> &'a [$name] {
                if items.is_null() || count == 0 {
                    &[]
                } else {
                    std::slice::from_raw_parts(items as *const $name, count)
                }
            }
        }
    };
}
