# shellcheck shell=bash
# Build locks that say who holds them. Source this file, then:
#   lock_acquire FD LOCKFILE WHO   take the flock on FD (opened on LOCKFILE); while another process holds
#                                  it, print who holds it, what it is doing and for how long, once a minute
#                                  (LOCK_REPORT_SECONDS: another interval)
#   lock_note LOCKFILE STEP        (the holder) record the step it is on, for the waiters to print
# The holder's pid, start time and step live in LOCKFILE.owner (a plain text line, rewritten per step).

lock_holder() {  # lock_holder LOCKFILE: one phrase about the holder
  local file=$1 pid since step now=$(date +%s)
  if [[ -r "$file.owner" ]] && read -r pid since step <"$file.owner" && [[ -n "$pid" && -n "$since" ]]; then
    local alive="running"; kill -0 "$pid" 2>/dev/null || alive="gone (its lock is released when it exits)"
    echo "pid $pid ($alive), holding it for $(( (now - since) / 60 )) min $(( (now - since) % 60 )) s, now: ${step:-starting}"
  else
    echo "holder unknown (an older build script without ${file##*/}.owner)"
  fi
}

lock_note() {  # lock_note LOCKFILE STEP
  local file=$1 step=$2 pid since since_old rest
  since=$(date +%s)
  if [[ -r "$file.owner" ]] && read -r pid since_old rest <"$file.owner" && [[ "$pid" == "$$" ]]; then
    since=$since_old
  fi
  printf '%s %s %s\n' "$$" "$since" "$step" >"$file.owner.tmp" && mv "$file.owner.tmp" "$file.owner"
}

lock_acquire() {  # lock_acquire FD LOCKFILE WHO
  local fd=$1 file=$2 who=$3 start=$SECONDS every=${LOCK_REPORT_SECONDS:-60}
  if ! flock -n "$fd"; then
    echo "$who: another build holds $file: $(lock_holder "$file")" >&2
    echo "$who: waiting for it (a first build of the Kubernetes binaries takes 20-60 min on 2 busy cores;" \
      "a line every minute)" >&2
    while ! flock -w "$every" "$fd"; do
      echo "$who: still waiting ($(( SECONDS - start )) s): $(lock_holder "$file")" >&2
    done
    echo "$who: the other build finished after $(( SECONDS - start )) s of waiting; reusing what it built" >&2
  fi
  lock_note "$file" "starting"
}
