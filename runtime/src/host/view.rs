//! The [`HasData`] marker each interface's `add_to_linker` uses: the
//! interface's host functions get `&mut` its own context, never the whole
//! store data, so an interface module knows nothing of [`super::TaskHost`].

use wasmtime::component::HasData;

/// [`HasData`] marker for host interfaces whose context is `&mut C`.
pub(crate) struct Ctx<C: 'static>(std::marker::PhantomData<C>);

impl<C: 'static> HasData for Ctx<C> {
    type Data<'a> = &'a mut C;
}
