package io.sluice.admin.rest;

/** What a route answers: a status and either a value serialized as JSON or plain text. */
public record ApiResponse(int status, Object json, String text, String contentType) {

  /** 200 with a JSON body. */
  public static ApiResponse ok(Object json) {
    return new ApiResponse(200, json, null, "application/json");
  }

  /** A JSON body with another status. */
  public static ApiResponse json(int status, Object json) {
    return new ApiResponse(status, json, null, "application/json");
  }

  /** 200 with a text body of {@code contentType}. */
  public static ApiResponse text(String text, String contentType) {
    return new ApiResponse(200, null, text, contentType);
  }
}
