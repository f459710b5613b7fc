#!/usr/bin/env python3
"""Renders a conversation with tools through Llama 3.1's chat template (llama31_tools_template.jinja,
Meta's published template), evaluated by `jinja2` with transformers' `tojson`, as the reference for
ChatTemplateLlamaToolTests. Writes llama_tools_*.txt beside itself.
Usage: python3 render_llama_tools.py"""
import json, os
import jinja2

here = os.path.dirname(os.path.abspath(__file__))
source = open(os.path.join(here, "llama31_tools_template.jinja")).read()
env = jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
# transformers' tojson
env.filters["tojson"] = lambda x, indent=None: json.dumps(x, ensure_ascii=False, indent=indent)
template = env.from_string(source)

tools = [{"type": "function", "function": {
    "name": "getWeather", "description": "Gets the weather of a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "The city"}},
                   "required": ["city"]}}}]
conversation = [
    {"role": "system", "content": "Help with the weather."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": "",
     "tool_calls": [{"type": "function", "function": {"name": "getWeather", "arguments": {"city": "Paris"}}}]},
    {"role": "tool", "content": "Sunny, 22 °C"},
    {"role": "assistant", "content": "It is sunny in Paris."},
    {"role": "user", "content": "Thanks!"},
]
cases = {
    "llama_tools_conversation.txt": dict(messages=conversation, tools=tools),
    "llama_tools_no_system.txt": dict(messages=conversation[1:2], tools=tools),
}
for name, args in cases.items():
    text = template.render(add_generation_prompt=True, bos_token="<|begin_of_text|>", **args)
    with open(os.path.join(here, name), "w") as f:
        f.write(text)
    print(name, len(text))
