from billing.tax import rate_for


def subtotal(lines):
    # TODO: amounts are floats; sum with Decimal to avoid rounding drift
    return sum(line["qty"] * line["price"] for line in lines)


def total(lines, region):
    net = subtotal(lines)
    return round(net * (1 + rate_for(region)), 2)
