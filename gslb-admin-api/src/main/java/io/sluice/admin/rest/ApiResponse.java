package io.sluice.admin.rest;

/**
 * What a route answers: a status and either a value serialized as JSON, plain text, or bytes (an
 * archive) of {@code contentType}.
 */
public record ApiResponse(int status, Object json, String text, String contentType, byte[] bytes) {

  /** 200 with a JSON body. */
  public static ApiResponse ok(Object json) {
    return new ApiResponse(200, json, null, "application/json", null);
  }

  /** A JSON body with another status. */
  public static ApiResponse json(int status, Object json) {
    return new ApiResponse(status, json, null, "application/json", null);
  }

  /** 200 with a text body of {@code contentType}. */
  public static ApiResponse text(String text, String contentType) {
    return new ApiResponse(200, null, text, contentType, null);
  }

  /** 200 with {@code bytes} as the body, of {@code contentType}. */
  public static ApiResponse bytes(byte[] bytes, String contentType) {
    return new ApiResponse(200, null, null, contentType, bytes);
  }
}
