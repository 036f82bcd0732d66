define void @f() {
  %x = add i32 1,
  ret void
}
