# bash completion for qpscope                                  -*- shell-script -*-
_qpscope_words() {  # the word list for one (sub)command
    local attrs="--port --pkey-index --qkey --access --mtu --dest-qpn --rq-psn --sq-psn --max-rd-atomic
        --max-dest-rd-atomic --min-rnr-timer --timeout --retry-cnt --rnr-retry --dgid --dlid --sl --sgid-index
        --hop-limit --traffic-class --flow-label --static-rate --path-mig-state"
    case $1 in
        "") echo "ports qp ping-pong bw" ;;
        ping-pong) echo "-d --device -i --ib-port -x --gid-index --op --transport -s --size -n --iterations -D --duration
            -w --warmup --inline -m --mtu -p --tcp-port -t --timeout -c --cpu --histogram" ;;
        bw) echo "-d --device -i --ib-port -x --gid-index --op --transport -s --size -n --iterations -D --duration
            -w --warmup --inline -m --mtu -p --tcp-port -t --timeout -c --cpu --tx-depth --rx-depth --post-list
            --cq-mod -q --qps -b --bidir --window -u --unit" ;;
        ports) echo "-d --device -p --port" ;;
        qp) echo "create modify query list post destroy" ;;
        "qp create") echo "-d --device -t --type --send-wr --recv-wr --send-sge --recv-sge --max-inline --cq-depth
            --no-sq-sig-all --to --pair --idle-timeout $attrs" ;;
        "qp modify") echo "--state --cur-state --dry-run $attrs" ;;
        "qp query") echo "-d --device" ;;
        "qp list") echo "-d --device --state -t --type --pid --qpn --held" ;;
        "qp post") echo "--op -s --size --wait --raddr --rkey" ;;
        "qp destroy") echo "--all" ;;
    esac
}

_qpscope_held_qpns() {
    qpscope --json qp list --held 2>/dev/null | sed -n 's/.*"name": "\(0x[0-9a-f]*\)".*/\1/p' | sort -u
}

_qpscope()
{
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=""
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}
    local global_opts="--json --color --help --version"
    local states="reset init rtr rts sqd sqe err"

    # The (sub)command path typed so far: "", "ports", "qp", "qp create", ...
    local path="" i w
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        case "$path:$w" in
            :ports|:qp|:ping-pong|:bw) path=$w ;;
            qp:create|qp:modify|qp:query|qp:list|qp:post|qp:destroy) path="qp $w" ;;
        esac
    done
    # ping-pong's and bw's -t (timeout) and -p (TCP port) take numbers, not types or ports.
    if [[ ( $path == ping-pong || $path == bw ) && ( $prev == -t || $prev == -p ) ]]; then
        COMPREPLY=(); return
    fi

    case $prev in
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        -d|--device) COMPREPLY=($(compgen -W "$(ls /sys/class/infiniband 2>/dev/null)" -- "$cur")); return ;;
        -t|--type|--transport) COMPREPLY=($(compgen -W "rc uc ud" -- "$cur")); return ;;
        --inline) COMPREPLY=($(compgen -W "auto on off" -- "$cur")); return ;;
        --state|--cur-state) COMPREPLY=($(compgen -W "$states" -- "$cur")); return ;;
        --to) COMPREPLY=($(compgen -W "init rtr rts" -- "$cur")); return ;;
        --op) COMPREPLY=($(compgen -W "send write read" -- "$cur")); return ;;
        -u|--unit) COMPREPLY=($(compgen -W "Gb/s GB/s GiB/s Mb/s MB/s MiB/s" -- "$cur")); return ;;
        --mtu) COMPREPLY=($(compgen -W "256 512 1024 2048 4096" -- "$cur")); return ;;
        --path-mig-state) COMPREPLY=($(compgen -W "migrated rearm armed" -- "$cur")); return ;;
        --access)
            local names="local_write remote_write remote_read remote_atomic mw_bind zero_based on_demand hugetlb relaxed_ordering"
            local prefix=""
            [[ $cur == *,* ]] && prefix=${cur%,*},
            COMPREPLY=($(compgen -P "$prefix" -W "$names" -- "${cur##*,}")); compopt -o nospace 2>/dev/null; return ;;
        -p|--port|-i|--ib-port)
            local dev="" i
            for ((i = 1; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in -d|--device) dev=${COMP_WORDS[i+1]} ;; esac
            done
            local ports
            if [ -n "$dev" ]; then ports=$(ls "/sys/class/infiniband/$dev/ports" 2>/dev/null)
            else ports=$(ls /sys/class/infiniband/*/ports 2>/dev/null | grep -E '^[0-9]+$' | sort -u); fi
            COMPREPLY=($(compgen -W "$ports" -- "$cur")); return ;;
    esac

    local words
    words="$(_qpscope_words "$path") $global_opts"
    case $path in
        "qp modify"|"qp query"|"qp post"|"qp destroy")
            [[ $cur != -* ]] && words="$words $(_qpscope_held_qpns)" ;;
    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _qpscope qpscope
