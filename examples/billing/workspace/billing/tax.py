RATES = {
    "EU": 0.21,
    "UK": 0.20,
    "US": 0.0,  # FIXME: US sales tax depends on the state
}


def rate_for(region):
    return RATES.get(region, 0.0)  # unknown regions silently pay no tax
