# bash completion for qpscope                                  -*- shell-script -*-
_qpscope()
{
    local cur prev words cword
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=""
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD-1]}

    local global_opts="--json --color --help --version"
    local subcommands="ports"

    case $prev in
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        -d|--device)
            COMPREPLY=($(compgen -W "$(ls /sys/class/infiniband 2>/dev/null)" -- "$cur")); return ;;
        -p|--port)
            local dev="" i
            for ((i = 1; i < COMP_CWORD; i++)); do
                case ${COMP_WORDS[i]} in -d|--device) dev=${COMP_WORDS[i+1]} ;; esac
            done
            local ports
            if [ -n "$dev" ]; then ports=$(ls "/sys/class/infiniband/$dev/ports" 2>/dev/null)
            else ports=$(ls /sys/class/infiniband/*/ports 2>/dev/null | grep -E '^[0-9]+$' | sort -u); fi
            COMPREPLY=($(compgen -W "$ports" -- "$cur")); return ;;
    esac

    local sub="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in ports) sub=${COMP_WORDS[i]}; break ;; esac
    done
    case $sub in
        "") COMPREPLY=($(compgen -W "$subcommands $global_opts" -- "$cur")) ;;
        ports) COMPREPLY=($(compgen -W "-d --device -p --port $global_opts" -- "$cur")) ;;
    esac
}
complete -F _qpscope qpscope
