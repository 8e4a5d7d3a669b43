//! C ABI of flatquad (being written).
