package io.sluice.core.config;

/** A position on earth in decimal degrees, for great-circle proximity. */
public record GeoPoint(Double lat, Double lon) {

  void validate(String path, Problems p) {
    if (p.required(Problems.child(path, "lat"), lat) && (lat < -90 || lat > 90)) {
      p.add(Problems.child(path, "lat"), "must be -90..90, was " + lat);
    }
    if (p.required(Problems.child(path, "lon"), lon) && (lon < -180 || lon > 180)) {
      p.add(Problems.child(path, "lon"), "must be -180..180, was " + lon);
    }
  }

  /** Great-circle distance in kilometres. */
  public double distanceKm(GeoPoint o) {
    double r = 6371.0;
    double p1 = Math.toRadians(lat);
    double p2 = Math.toRadians(o.lat);
    double dp = p2 - p1;
    double dl = Math.toRadians(o.lon - lon);
    double a =
        Math.sin(dp / 2) * Math.sin(dp / 2)
            + Math.cos(p1) * Math.cos(p2) * Math.sin(dl / 2) * Math.sin(dl / 2);
    return 2 * r * Math.asin(Math.min(1.0, Math.sqrt(a)));
  }
}
