# The overrides that switch each optional model on (`--set` pairs), declared once for
# scripts/model_costs.sh (instructions per I/O) and scripts/model_walls.sh (wall time), which
# source this file (`check_models` refuses a name not declared here). `plp_all_pages` protects
# every translation page (no extra write-backs), which isolates PLP's bookkeeping from the flash
# work it models.
declare -A MODELS=(
    [thermal]="thermal.enabled=true"
    [throttle]="thermal.enabled=true throttle.policy=cst"
    [reliability]="reliability.enabled=true"
    [write_buffer]="buffer.capacity=64MiB"
    [plp]="buffer.capacity=64MiB plp.enabled=true"
    [plp_all_pages]="buffer.capacity=64MiB plp.enabled=true plp.protected_ratio=1"
    [read_cache]="buffer.read_cache=64MiB"
    [read_ahead]="buffer.read_cache=64MiB buffer.read_ahead=128KiB"
    [slc_cache]="slc_cache.enabled=true slc_cache.static_size=16MiB"
    [arbitration]="host.arbitration=weighted_round_robin"
    [fdp]="fdp.enabled=true fdp.handles=2"
    # The power model is on in every row above; these two rows show what it costs: the base
    # ("off") against power off, and the drive's ISPP program profile (eight segments, each a
    # booked change of the die's power) against a flat program current.
    [power]=""
    [power_off]="power.enabled=false"
    [ispp_profile]=""
    [flat_profile]="power.program_profile=[]"
)

# Exits (status 2) naming the allowed models unless every argument names one of MODELS.
check_models() {
    local name
    for name in "$@"; do
        if [ -z "${MODELS[$name]+set}" ]; then
            echo "$(basename "$0"): unknown model '$name'; allowed: $(printf '%s\n' "${!MODELS[@]}" | sort | tr '\n' ' ')" >&2
            exit 2
        fi
    done
}
