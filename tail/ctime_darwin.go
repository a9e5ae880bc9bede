package tail

import "syscall"

func ctime(st *syscall.Stat_t) (sec, nsec int64) { return st.Ctimespec.Sec, st.Ctimespec.Nsec }
